// fabricsm's web view: one page over the JSON API (/api/...), hash-routed, no library.
// Every text from the fabric (node descriptions) goes in as text nodes, never as HTML.
'use strict';

const view = document.getElementById('view');

// h('td', {class: 'num'}, 'text', child, ...): an element; null and false children are skipped.
function h(tag, attrs, ...children) {
  const ns = ['svg', 'g', 'line', 'rect', 'circle', 'text', 'polyline', 'title', 'path'].includes(tag);
  const e = ns ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(path) {
  const r = await fetch('/api/' + path, {credentials: 'same-origin'});
  const body = await r.json().catch(() => ({error: 'not JSON (' + r.status + ')'}));
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}

function show(state, ...content) {
  view.replaceChildren(...content.flat().filter(c => c !== null && c !== undefined && c !== false));
  view.dataset.state = state;
}

function fail(err) {
  show('error', h('div', {class: 'error', id: 'error'}, String(err.message || err)));
}

const fmtTime = ms => ms ? new Date(ms).toISOString().replace('.000', '') : '-';
const fmtRate = b => b === null || b === undefined ? '-' :
  b >= 1e9 ? (b / 1e9).toFixed(2) + ' GB/s' : b >= 1e6 ? (b / 1e6).toFixed(1) + ' MB/s' :
  b >= 1e3 ? (b / 1e3).toFixed(1) + ' kB/s' : b.toFixed(0) + ' B/s';
const pct = u => u === null || u === undefined ? '-' : (100 * u).toFixed(1) + '%';
const nodeLink = n => h('a', {href: '#/node/' + n.guid, 'data-guid': n.guid}, n.description || n.guid);
const endText = e => [nodeLink(e), ' [' + e.port + ']', e.lid ? h('span', {class: 'muted'}, ' LID ' + e.lid) : null];

function table(headers, rows, attrs) {
  return h('table', attrs || {},
    h('thead', {}, h('tr', {}, headers.map(c => h('th', {class: c.endsWith('#') ? 'num' : null}, c.replace(/#$/, ''))))),
    h('tbody', {}, rows));
}

// Utilisation 0..1 (or a load against its maximum) as green -> amber -> red; grey: unknown.
function heat(v) {
  if (v === null || v === undefined || isNaN(v)) return '#9aa3b2';
  const x = Math.max(0, Math.min(1, v));
  const r = x < 0.5 ? Math.round(60 + 390 * x) : 230, g = x < 0.5 ? 170 : Math.round(170 - 260 * (x - 0.5));
  return `rgb(${r},${Math.max(40, g)},50)`;
}

// --- overview --------------------------------------------------------------------------
async function overview() {
  const s = await api('summary');
  const c = s.counts || {};
  const card = (id, label, value, cls) => h('div', {class: 'card'}, h('div', {class: 'label'}, label),
    h('div', {class: 'big ' + (cls || ''), id: id}, value));
  const sm = s.sm || {};
  const last = s.last_sweep;
  document.getElementById('status').textContent = `${s.source} · ${sm.state || '?'}`;
  const cards = h('div', {class: 'cards'},
    card('sm-state', 'this SM', (sm.state || '?') + (sm.up ? ' · UP' : ''), sm.up ? 'good' : 'warn'),
    card('count-switches', 'switches', c.switches ?? '-'),
    card('count-cas', 'CAs', c.cas ?? '-'),
    card('count-links', 'cables', c.links ?? '-'),
    card('count-lids', 'LIDs', c.lids ?? '-'),
    card('count-failed', 'failed cables', c.failed_cables ?? 0, c.failed_cables ? 'bad' : ''),
    card('count-findings', 'health findings', s.health.open, s.health.open ? 'warn' : ''));
  const smTable = table(['', ''], [
    h('tr', {}, h('td', {}, 'priority'), h('td', {}, sm.priority ?? '-')),
    h('tr', {}, h('td', {}, 'port GUID / LID'), h('td', {}, (sm.guid || '-') + ' / ' + (sm.lid ?? '-'))),
    h('tr', {}, h('td', {}, 'sweeps (heavy, incremental)'), h('td', {}, `${sm.heavy_sweeps ?? '-'}, ${sm.incremental_sweeps ?? '-'}`)),
    last && h('tr', {}, h('td', {}, 'last sweep'), h('td', {id: 'last-sweep'},
      `#${last.number} ${last.kind} (${last.trigger}) ${last.total_ms.toFixed(1)} ms, ${last.smps} SMPs, ` +
      `${last.lft_blocks} LFT blocks` + (last.up ? '' : ' — not up: ' + last.failure))),
    h('tr', {}, h('td', {}, 'routing engine'), h('td', {}, last ? last.engine || '-' : '-')),
  ]);
  const peers = (sm.peers || []).map(p => h('tr', {}, h('td', {}, p.guid), h('td', {}, p.state),
    h('td', {class: 'num'}, p.priority), h('td', {}, p.answered ? 'yes' : 'no'), h('td', {}, p.sm_key_ok ? 'yes' : 'no')));
  const findings = s.health.findings.map(f => h('tr', {},
    h('td', {class: f.severity === 'error' ? 'bad' : 'warn'}, f.rule), h('td', {}, endText(f.at)),
    h('td', {}, f.peer ? endText(f.peer) : '-'), h('td', {}, f.what), h('td', {}, f.isolated ? 'isolated' : '')));
  show('overview', h('h1', {}, 'Subnet'), cards,
    h('h2', {}, 'Subnet manager'), smTable,
    h('h2', {}, 'Other SMs'), peers.length ? table(['port GUID', 'state', 'priority#', 'answers', 'SM_Key'], peers)
      : h('p', {class: 'muted'}, 'none seen'),
    h('h2', {}, 'Health'), findings.length ? table(['rule', 'at', 'peer', 'what', ''], findings, {id: 'findings'})
      : h('p', {class: 'muted'}, s.health.counter_sweeps ? 'no open findings' : 'no counter sweep yet (perfmgr off?)'),
    h('h2', {}, 'Recent events'), eventTable(s.events.slice().reverse()));
}

function eventTable(list) {
  return table(['time', 'code', 'message'], list.map(e => h('tr', {'data-code': e.code},
    h('td', {}, fmtTime(e.time_ms)), h('td', {class: e.level === 'error' ? 'bad' : e.level === 'warn' ? 'warn' : ''}, e.code),
    h('td', {}, e.message))), {id: 'events'});
}

// --- topology --------------------------------------------------------------------------
// Tiers as rows (spines on top) for trees; a force layout for other fabrics.
function layout(t, width) {
  const nodes = t.nodes, rowH = 110, pad = 40;
  if (t.tree || t.mode === 'groups') {
    const tiers = {};
    for (const n of nodes) (tiers[n.tier] = tiers[n.tier] || []).push(n);
    const top = Math.max(...nodes.map(n => n.tier));
    for (const [tier, list] of Object.entries(tiers)) {
      list.forEach((n, i) => {
        n.x = pad + (width - 2 * pad) * (list.length === 1 ? 0.5 : i / (list.length - 1));
        n.y = pad + (top - tier) * rowH;
      });
    }
    return pad * 2 + top * rowH;
  }
  const side = Math.ceil(Math.sqrt(nodes.length)), cell = (width - 2 * pad) / Math.max(1, side - 1);
  nodes.forEach((n, i) => { n.x = pad + (i % side) * cell; n.y = pad + Math.floor(i / side) * cell; });
  const byKey = new Map(nodes.map(n => [n.key, n]));
  const k = cell;
  for (let it = 0; it < 150 && nodes.length <= 400; ++it) {
    for (const n of nodes) { n.dx = 0; n.dy = 0; }
    for (let i = 0; i < nodes.length; ++i) for (let j = i + 1; j < nodes.length; ++j) {
      const a = nodes[i], b = nodes[j], dx = a.x - b.x, dy = a.y - b.y, d2 = Math.max(1, dx * dx + dy * dy);
      const f = k * k / d2;
      a.dx += dx * f; a.dy += dy * f; b.dx -= dx * f; b.dy -= dy * f;
    }
    for (const e of t.edges) {
      const a = byKey.get(e.a), b = byKey.get(e.b), dx = a.x - b.x, dy = a.y - b.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
      const f = d / k;
      a.dx -= dx * f; a.dy -= dy * f; b.dx += dx * f; b.dy += dy * f;
    }
    const step = k * 0.1 * (1 - it / 150);
    for (const n of nodes) {
      const d = Math.sqrt(n.dx * n.dx + n.dy * n.dy) || 1;
      n.x += n.dx / d * Math.min(step, d); n.y += n.dy / d * Math.min(step, d);
    }
  }
  const minX = Math.min(...nodes.map(n => n.x)), minY = Math.min(...nodes.map(n => n.y));
  const maxX = Math.max(...nodes.map(n => n.x)), maxY = Math.max(...nodes.map(n => n.y));
  const sx = (width - 2 * pad) / Math.max(1, maxX - minX);
  for (const n of nodes) { n.x = pad + (n.x - minX) * sx; n.y = pad + (n.y - minY) * sx; }
  return pad * 2 + (maxY - minY) * sx;
}

async function topology(group, params) {
  const t = await api('topology' + (group !== undefined ? '?group=' + group : ''));
  // Colour by measured utilisation, or by the simulator's figure (route counts) when asked or
  // when nothing is measured.
  const hasUtil = t.edges.some(e => e.utilisation !== null && e.utilisation > 0);
  const by = params.get('by') || (t.loads && !hasUtil ? 'load' : 'util');
  const width = Math.max(800, view.clientWidth - 20);
  const height = layout(t, width);
  const byKey = new Map(t.nodes.map(n => [n.key, n]));
  // Route counts: green up to the mean of the drawn links, red at the busiest (a balanced
  // fabric is all green; its hot spots stand out).
  const loads = t.edges.map(e => e.load).filter(v => v !== null);
  const mean = loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : 0;
  const hottest = loads.length ? Math.max(...loads) : 0;
  // Errors: red from 1,000 a second down, amber from 1, green without.
  const measure = e => by === 'errors' ? (e.utilisation === null && !e.errors_per_s ? null : Math.min(1, Math.log10(1 + e.errors_per_s) / 3)) :
    by !== 'load' ? e.utilisation : e.load === null ? null :
    hottest > mean ? Math.max(0, (e.load - mean) / (hottest - mean)) : 0;
  const dense = t.edges.length > 200, maxCables = Math.max(1, ...t.edges.map(e => e.cables));
  const perTier = {};
  for (const n of t.nodes) perTier[n.tier] = (perTier[n.tier] || 0) + 1;
  const edges = t.edges.map(e => {
    const a = byKey.get(e.a), b = byKey.get(e.b);
    const cls = 'edge' + (e.failed && !e.cables ? ' failed' : e.failed ? ' failed' : e.isolated ? ' isolated' : '');
    // Many edges: thin and translucent, so the tiers and the hot or failed ones stay visible.
    const w = dense ? 0.4 + 1.6 * e.cables / maxCables : Math.min(6, 1 + Math.log2(Math.max(1, e.cables)));
    return h('line', {class: cls, x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: heat(measure(e)), 'stroke-width': w,
      'stroke-opacity': dense && !e.failed && !e.isolated ? 0.35 : null,
      'data-a': e.a, 'data-b': e.b, 'data-failed': e.failed},
      h('title', {}, `${a.label} — ${b.label}: ${e.cables} cable(s)` + (e.failed ? `, ${e.failed} failed` : '') +
        (e.isolated ? `, ${e.isolated} isolated` : '') + (e.utilisation !== null ? `, busiest ${pct(e.utilisation)}` : '') +
        (e.load !== null ? `, ${t.loads.name} ${e.load}` : '') + (e.errors_per_s ? `, ${e.errors_per_s.toFixed(2)} errors/s` : '')));
  });
  const nodes = t.nodes.map(n => {
    const href = n.kind === 'group' ? '#/topology/' + n.group : '#/node/' + n.guid;
    const big = n.kind === 'group';
    const shape = big ? h('rect', {x: n.x - 18, y: n.y - 11, width: 36, height: 22, rx: 4, fill: '#c9d7f2'})
      : h('circle', {cx: n.x, cy: n.y, r: 7, fill: n.cas ? '#9fc5a8' : '#c9d7f2'});
    return h('g', {class: 'node', 'data-kind': n.kind, 'data-key': n.key, 'data-guid': n.guid || null,
      onclick: () => { location.hash = href; }},
      shape, h('title', {}, big ? `${n.label}: ${n.switches} switches, ${n.cas} CAs` :
        `${n.label} ${n.guid} LID ${n.lid}, ${n.cas} CAs`),
      (t.nodes.length <= 64 || big) ? h('text', {x: n.x, y: n.y + (big ? 24 : 18), 'text-anchor': 'middle'},
        // A crowded tier: the group's number only (the tooltip has the name).
        big ? (perTier[n.tier] > 24 ? n.label.replace(/^\D+/, '') : n.label) : (n.label || '').slice(0, 18)) : null);
  });
  const svg = h('svg', {class: 'topo', id: 'topology', viewBox: `0 0 ${width} ${height}`, height: height,
    'data-mode': t.mode}, h('g', {}, edges), h('g', {}, nodes));
  const failed = t.edges.reduce((s, e) => s + e.failed, 0);
  const here = '#/topology' + (group !== undefined ? '/' + group : '') + '?';
  const legend = h('div', {class: 'legend'},
    h('span', {}, h('span', {class: 'swatch', style: `background:${heat(0)}`}), by === 'load' ? 'at or below the mean' : by === 'errors' ? 'no errors' : 'idle'),
    h('span', {}, h('span', {class: 'swatch', style: `background:${heat(1)}`}),
      by === 'load' ? `busiest (${t.loads.name}: ${hottest} here, ${t.loads.max} on the busiest link)` :
      by === 'errors' ? '1,000 errors/s or more' : 'saturated'),
    h('span', {}, h('span', {class: 'swatch', style: `background:${heat(null)}`}), 'not measured'),
    h('span', {class: failed ? 'bad' : ''}, h('span', {class: 'swatch', style: 'background:#c62828'}),
      `failed (${failed})`),
    h('span', {}, h('span', {class: 'swatch', style: 'background:#e08a00'}), 'isolated'),
    h('span', {}, 'colour by ', h('a', {href: here + 'by=util', id: 'by-util'}, 'utilisation'), ' · ',
      h('a', {href: here + 'by=errors', id: 'by-errors'}, 'errors'),
      t.loads ? [' · ', h('a', {href: here + 'by=load', id: 'by-load'}, t.loads.name)] : null));
  const title = t.mode === 'groups' ? `${t.nodes.length} groups (pods and spine planes); select one to open it`
    : group !== undefined ? `${t.group_name}: its switches, and the groups they reach` : `${t.nodes.length} switches`;
  show('topology', h('h1', {}, 'Topology', h('span', {class: 'muted', id: 'colour-by', 'data-by': by}, '')), h('p', {class: 'muted'}, title + (t.tree ? `, ${t.tiers} tiers` : ', not a tree'),
    group !== undefined ? [' · ', h('a', {href: '#/topology'}, 'whole fabric')] : null), legend, svg);
}

// --- cables ----------------------------------------------------------------------------
async function cables(params) {
  const state = params.get('state') || 'all', offset = +(params.get('offset') || 0), sort = params.get('sort') || '';
  const q = new URLSearchParams({state, offset, limit: 200});
  if (sort) q.set('sort', sort);
  const r = await api('links?' + q);
  const rows = r.links.map(l => h('tr', {'data-state': l.state},
    h('td', {}, endText(l.a)), h('td', {}, endText(l.b)),
    h('td', {class: l.state === 'failed' ? 'bad' : l.state === 'isolated' ? 'warn' : ''}, l.state),
    h('td', {}, l.rate || '-'), h('td', {class: 'num'}, pct(l.utilisation)),
    h('td', {class: 'num'}, l.errors_per_s ? l.errors_per_s.toFixed(2) : '-'),
    h('td', {class: 'num'}, l.load ?? '-'), h('td', {}, (l.findings || []).join(', ') || (l.last_seen_ms ? 'last seen ' + fmtTime(l.last_seen_ms) : ''))));
  const go = (o) => { const p = new URLSearchParams({state, offset: o}); if (sort) p.set('sort', sort); location.hash = '#/links?' + p; };
  const pick = h('select', {id: 'cable-state', onchange: e => { location.hash = '#/links?state=' + e.target.value; }},
    ['all', 'up', 'failed', 'isolated', 'flagged'].map(s => h('option', {value: s, selected: s === state || null}, s)));
  show('cables', h('h1', {}, 'Cables'),
    h('form', {class: 'inline'}, 'show', pick, 'sort by',
      ['', 'util', 'errors', 'load'].map(s => h('a', {href: '#/links?' + new URLSearchParams({state, sort: s})}, s || 'name'))),
    h('div', {class: 'pager'}, `${r.total} cable(s)`, offset > 0 ? h('button', {onclick: () => go(Math.max(0, offset - 200))}, 'previous') : null,
      offset + 200 < r.total ? h('button', {onclick: () => go(offset + 200)}, 'next') : null),
    table(['end', 'end', 'state', 'rate', 'busiest#', 'errors/s#', 'load#', ''], rows, {id: 'cables'}));
}

// --- a node ----------------------------------------------------------------------------
function sparkline(values, label) {
  const w = 300, hgt = 70, max = Math.max(1e-9, ...values);
  const pts = values.map((v, i) => `${values.length < 2 ? w / 2 : i * w / (values.length - 1)},${hgt - 4 - v / max * (hgt - 10)}`);
  return h('div', {class: 'plot'}, h('div', {class: 'label'}, `${label} (max ${label.includes('bytes') ? fmtRate(max) : max.toFixed(1)})`),
    h('svg', {viewBox: `0 0 ${w} ${hgt}`, preserveAspectRatio: 'none'},
      h('polyline', {points: pts.join(' '), fill: 'none', stroke: '#2f5fb3', 'stroke-width': 1.5})));
}

async function plotPort(guid, port, into) {
  const c = await api(`counters?node=${encodeURIComponent(guid)}&port=${port}`);
  const s = c.series;
  into.replaceChildren(h('h2', {}, `Port ${port} over the last hour`),
    s.time_ms.length ? h('div', {class: 'plots', id: 'plots'}, sparkline(s.xmit_bytes_per_s, 'xmit bytes/s'),
      sparkline(s.rcv_bytes_per_s, 'rcv bytes/s'), sparkline(s.errors, 'errors per interval'),
      sparkline(s.xmit_wait_per_s, 'xmit wait ticks/s'))
      : h('p', {class: 'muted'}, `no stored samples (${c.history})`));
}

async function node(which, params) {
  const n = await api('node/' + encodeURIComponent(which));
  const ports = n.ports.map(p => {
    const r = p.counters && p.counters.rates;
    return h('tr', {'data-port': p.port},
      h('td', {class: 'num'}, p.port), h('td', {}, p.state), h('td', {}, p.rate || '-'),
      h('td', {}, p.peer ? endText(p.peer) : '-'), h('td', {class: 'num'}, p.lid || '-'),
      h('td', {class: 'num'}, pct(p.utilisation)), h('td', {class: 'num'}, r ? fmtRate(r.port_xmit_data) : '-'),
      h('td', {class: 'num'}, r ? fmtRate(r.port_rcv_data) : '-'),
      h('td', {class: 'num'}, p.load ?? '-'),
      h('td', {}, p.counters ? h('button', {onclick: () => plotPort(n.guid, p.port, plots).catch(fail)}, 'plot') : ''));
  });
  const plots = h('div', {id: 'port-plot'});
  const lftOut = h('div', {id: 'lft-answer'});
  const lftForm = n.type === 'switch' ? h('form', {class: 'inline', onsubmit: async e => {
    e.preventDefault();
    const lid = e.target.elements.lid.value;
    try {
      const a = await api(`lft?node=${n.guid}&lid=${encodeURIComponent(lid)}`);
      lftOut.replaceChildren(h('p', {}, `LID ${a.lid} (${a.holder ? a.holder.description + ' [' + a.holder.port + ']' : 'no port'}) leaves by port `,
        h('b', {}, a.port ?? 'none'), a.next ? [' to ', endText(a.next)] : '',
        a.alternatives && a.alternatives.length ? ` · alternatives ${a.alternatives.join(', ')}` : ''));
    } catch (err) { lftOut.replaceChildren(h('p', {class: 'error'}, err.message)); }
  }}, 'LFT entry for LID', h('input', {name: 'lid', size: 6}), h('button', {}, 'look up')) : null;
  const pathForm = h('form', {class: 'inline', onsubmit: e => {
    e.preventDefault();
    location.hash = `#/path/${encodeURIComponent(n.guid)}/${encodeURIComponent(e.target.elements.to.value)}`;
  }}, 'path to', h('input', {name: 'to', size: 24, placeholder: 'GUID, LID or description'}), h('button', {}, 'trace'));
  const findings = n.findings.map(f => h('tr', {}, h('td', {class: f.severity === 'error' ? 'bad' : 'warn'}, f.rule),
    h('td', {}, endText(f.at)), h('td', {}, f.what)));
  const gone = n.failed_cables.map(g => h('tr', {'data-state': 'failed'}, h('td', {}, `${g.a.description} [${g.a.port}]`),
    h('td', {}, `${g.b.description} [${g.b.port}]`), h('td', {}, fmtTime(g.last_seen_ms))));
  show('node', h('h1', {id: 'node-title', 'data-guid': n.guid}, `${n.type} ${n.description}`),
    table(['', ''], [['GUID', n.guid], ['LID', n.lid], ['system GUID', n.system_guid], ['vendor / device', `${n.vendor_id} / ${n.device_id}`],
      n.tier !== undefined ? ['tier', n.tier] : null, n.group >= 0 ? ['group', h('a', {href: '#/topology/' + n.group}, String(n.group))] : null]
      .filter(x => x).map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, v)))),
    h('h2', {}, 'Ports'),
    table(['port#', 'state', 'rate', 'peer', 'LID#', 'utilisation#', 'xmit#', 'rcv#', 'load#', ''], ports, {id: 'ports'}),
    plots, lftForm, lftOut, pathForm,
    findings.length ? [h('h2', {}, 'Health findings'), table(['rule', 'at', 'what'], findings)] : null,
    gone.length ? [h('h2', {}, 'Failed cables'), table(['end', 'end', 'last seen'], gone, {id: 'failed-cables'})] : null);
  if (params.get('port')) await plotPort(n.guid, +params.get('port'), plots);  // a link to a port's plots
}

async function path(from, to) {
  const r = await api(`route?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  const rows = r.hops.map((x, i) => h('tr', {}, h('td', {class: 'num'}, i), h('td', {}, nodeLink(x)), h('td', {}, x.type),
    h('td', {class: 'num'}, x.in_port ?? '-'), h('td', {class: 'num'}, x.out_port ?? '-')));
  show('path', h('h1', {}, `Path from ${r.from.description} to LID ${r.to_lid}`),
    h('p', {class: r.reached ? 'good' : 'bad', id: 'path-result'}, r.reached ? `reached in ${r.hops.length - 1} hop(s)` : 'not reached: ' + r.reason),
    table(['hop#', 'node', 'type', 'in#', 'out#'], rows, {id: 'path'}));
}

// --- search, events, metrics -------------------------------------------------------------
async function search(q) {
  document.getElementById('search').value = q;
  const r = await api('nodes?' + new URLSearchParams({q, limit: 100}));
  show('search', h('h1', {}, `Search: ${q}`), h('p', {}, `${r.total} node(s)`),
    h('ul', {id: 'search-results'}, r.nodes.map(n => h('li', {'data-guid': n.guid},
      nodeLink(n), ` ${n.type} ${n.guid} LID ${n.lid}`))));
}

async function events(params) {
  const q = new URLSearchParams();
  for (const k of ['level', 'code', 'q']) if (params.get(k)) q.set(k, params.get(k));
  const r = await api('events?' + q);
  const form = h('form', {class: 'inline', onsubmit: e => {
    e.preventDefault();
    const f = e.target.elements, p = new URLSearchParams();
    if (f.level.value) p.set('level', f.level.value);
    if (f.code.value) p.set('code', f.code.value);
    if (f.q.value) p.set('q', f.q.value);
    location.hash = '#/events?' + p;
  }}, 'level', h('select', {name: 'level'}, ['', 'error', 'warn', 'info'].map(l =>
    h('option', {value: l, selected: l === (params.get('level') || '') || null}, l || 'any'))),
    'code', h('input', {name: 'code', size: 6, value: params.get('code') || ''}),
    'text', h('input', {name: 'q', size: 20, value: params.get('q') || ''}), h('button', {}, 'filter'));
  show('events', h('h1', {}, 'Events'), form, h('p', {}, `${r.total} event(s)`), eventTable(r.events));
}

async function metrics() {
  const m = await api('metrics');
  const rows = Object.entries(m).map(([k, v]) => h('tr', {'data-key': k}, h('td', {}, k.replace(/_/g, ' ')),
    h('td', {class: 'num'}, typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v))));
  show('metrics', h('h1', {}, 'Routing metrics of the current tables'), table(['', ''], rows, {id: 'metrics'}));
}

// --- routing ---------------------------------------------------------------------------
async function route() {
  const [p, query] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = p.split('/').map(decodeURIComponent), params = new URLSearchParams(query || '');
  view.dataset.state = 'loading';
  try {
    if (parts[0] === '' || parts[0] === 'overview') await overview();
    else if (parts[0] === 'topology') await topology(parts[1] !== undefined && parts[1] !== '' ? +parts[1] : undefined, params);
    else if (parts[0] === 'links') await cables(params);
    else if (parts[0] === 'node') await node(parts[1], params);
    else if (parts[0] === 'path') await path(parts[1], parts[2]);
    else if (parts[0] === 'search') await search(parts.slice(1).join('/'));
    else if (parts[0] === 'events') await events(params);
    else if (parts[0] === 'metrics') await metrics();
    else show('error', h('div', {class: 'error'}, 'no such page'));
  } catch (err) { fail(err); }
}

document.getElementById('search-form').addEventListener('submit', e => {
  e.preventDefault();
  const q = document.getElementById('search').value.trim();
  if (q) location.hash = '#/search/' + encodeURIComponent(q);
});
window.addEventListener('hashchange', route);
route();
