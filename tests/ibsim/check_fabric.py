#!/usr/bin/env python3
"""Checks of a fabric brought up by an SM on ibsim, from what infiniband-diags read back.

  check_fabric.py topology NETFILE IBNET SMLIDS   every node of the file present, every CA port
                                                  and switch with a unique LID, and the LIDs the
                                                  SM says it assigned (SMLIDS: "port-GUID LID"
                                                  lines, or OpenSM's guid2lid; empty: not compared)
  check_fabric.py routes IBNET FTS                walk every switch's LFT (dump_fts) to every CA
                                                  LID, as the sim verifier does
  check_fabric.py pairs IBNET N                   N sampled "slid dlid dest-node-GUID" CA pairs
                                                  (always including the highest CA LID)
  check_fabric.py lids IBNET N                    N sampled "LID port", CA ports and switches
  check_fabric.py loads IBNET FTS                 print "MAX MEAN": all-to-all CA pairs routed over each
                                                  directed switch-to-switch link by the LFTs
  check_fabric.py links IBLINKINFO                every port with a physical link is Active
  check_fabric.py corrupt IBNET FTS               "DRPATH LID PORT CA-GUID SRC-LID": one LFT
                                                  entry that, rewritten, loops a CA's LID

IBNET is `ibnetdiscover -g` output. Exit status 0 when the check passes.
"""
import random
import re
import sys

CA_LINE = re.compile(r'^(Ca|Hca)\s+(\d+)\s+"[^"]*"\s+#\s+"([^"]*)"')
SW_LINE = re.compile(r'^Switch\s+(\d+)\s+"[^"]*"\s+#\s+"([^"]*)".*\blid (\d+)')
GUID_LINE = re.compile(r'^(switch|ca)guid=0x([0-9a-f]+)(?:\(([0-9a-f]+)\))?')
PORT_LINE = re.compile(r'^\[(\d+)\](?:\(([0-9a-f]+)\))?\s+"([^"]*)"\[(\d+)\]')


class Fabric:
    """Nodes keyed by node GUID (int): kind, name, LID(s), and links port -> (guid, port)."""

    def __init__(self, path):
        self.nodes = {}
        self.by_ibname = {}  # ibnetdiscover's "S-..." / "H-..." name -> node GUID
        cur = None
        guid = port_guid = None
        for line in open(path):
            m = GUID_LINE.match(line)
            if m:
                guid = int(m.group(2), 16)
                port_guid = int(m.group(3), 16) if m.group(3) else guid
                continue
            m = SW_LINE.match(line)
            if m:
                cur = self.add(line, guid, 'switch', m.group(2))
                cur['lid'] = int(m.group(3))
                cur['port_guid'] = port_guid
                continue
            m = CA_LINE.match(line)
            if m:
                cur = self.add(line, guid, 'ca', m.group(3))
                continue
            m = PORT_LINE.match(line)
            if m and cur is not None:
                port = int(m.group(1))
                cur['links'][port] = (m.group(3), int(m.group(4)))
                if cur['kind'] == 'ca':
                    lid = re.search(r'#\s+lid (\d+)', line)
                    cur['ports'][port] = (int(m.group(2), 16), int(lid.group(1)) if lid else 0)
        for n in self.nodes.values():  # peer names -> GUIDs
            n['links'] = {p: (self.by_ibname[name], pp) for p, (name, pp) in n['links'].items()
                          if name in self.by_ibname}

    def add(self, line, guid, kind, desc):
        ibname = re.search(r'"([^"]*)"', line).group(1)
        node = {'guid': guid, 'kind': kind, 'name': desc, 'links': {}, 'ports': {}, 'lid': 0}
        self.nodes[guid] = node
        self.by_ibname[ibname] = guid
        return node

    def switches(self):
        return [n for n in self.nodes.values() if n['kind'] == 'switch']

    def cas(self):
        return [n for n in self.nodes.values() if n['kind'] == 'ca']

    def ca_lids(self):
        """(LID, node GUID, port) for every linked CA port."""
        out = []
        for n in self.cas():
            for port, (_, lid) in sorted(n['ports'].items()):
                out.append((lid, n['guid'], port))
        return sorted(out)


def netfile_names(path):
    sw, ca = set(), set()
    for line in open(path):
        m = re.match(r'^(Switch|Hca|Ca)\s+\d+\s+"([^"]*)"', line)
        if m:
            (sw if m.group(1) == 'Switch' else ca).add(m.group(2))
    return sw, ca


def check_topology(netfile, ibnet, smlids):
    f = Fabric(ibnet)
    want_sw, want_ca = netfile_names(netfile)
    got_sw = {n['name'] for n in f.switches()}
    got_ca = {n['name'] for n in f.cas()}
    errors = []
    if got_sw != want_sw or got_ca != want_ca:
        errors.append(f'nodes: file has {len(want_sw)} switches and {len(want_ca)} CAs, '
                      f'ibnetdiscover found {len(got_sw)} and {len(got_ca)}; '
                      f'missing {sorted((want_sw - got_sw) | (want_ca - got_ca))[:5]}')
    seen = {}  # LID -> owner
    port_lids = {}  # port GUID -> LID, as the fabric holds them
    for n in f.switches():
        port_lids[n['port_guid']] = n['lid']
    for n in f.cas():
        for pg, lid in n['ports'].values():
            port_lids[pg] = lid
    for pg, lid in port_lids.items():
        if lid == 0:
            errors.append(f'port GUID {pg:#018x} has no LID')
        elif lid in seen:
            errors.append(f'LID {lid} on both {seen[lid]:#018x} and {pg:#018x}')
        seen[lid] = pg
    sm = {}
    for line in open(smlids):  # "GUID LID": fabricsm's debug lines, or OpenSM's guid2lid
        fields = line.split()
        if len(fields) >= 2:
            sm[int(fields[0], 16)] = int(fields[1], 0)
    if sm:
        for pg, lid in port_lids.items():
            if sm.get(pg) != lid:
                errors.append(f'port GUID {pg:#018x}: LID {lid} in the fabric, the SM assigned {sm.get(pg)}')
        for pg in sm.keys() - port_lids.keys():
            errors.append(f'the SM assigned LID {sm[pg]} to port GUID {pg:#018x}, not in the fabric')
    for e in errors[:10]:
        print('  ' + e)
    if len(errors) > 10:
        print(f'  ... {len(errors) - 10} more')
    print(f'topology: {len(got_sw)} switches, {len(got_ca)} CAs, {len(port_lids)} LIDs'
          + (f', all as the SM assigned them' if sm and not errors else '')
          + (' OK' if not errors else f': {len(errors)} problems'))
    return not errors


def read_lfts(path, dr_paths=None):
    """Switch node GUID -> {LID: port} from dump_fts output; and the highest LID listed.
    `dr_paths`, when given, gets switch GUID -> its directed route ("0,1,5")."""
    lfts, cur, top = {}, None, 0
    for line in open(path):
        m = line.startswith('Unicast') and re.match(
            r'^Unicast lids \[0x[0-9a-f]+-0x([0-9a-f]+)\] of switch DR path .*; ([0-9,]+) guid 0x([0-9a-f]+)', line)
        if m:
            cur = lfts.setdefault(int(m.group(3), 16), {})
            top = max(top, int(m.group(1), 16))
            if dr_paths is not None:
                dr_paths[int(m.group(3), 16)] = m.group(2)
            continue
        if line.startswith('0x') and cur is not None:  # "0x0012 005 : (...)"
            lid, port = line.split(None, 2)[:2]
            cur[int(lid, 16)] = int(port)
    return lfts, top


def check_routes(ibnet, fts):
    f = Fabric(ibnet)
    lfts, _ = read_lfts(fts)
    dests = f.ca_lids()
    max_lid = max([lid for lid, _, _ in dests] + [n['lid'] for n in f.switches()])
    errors, pairs, delivered, skipped = [], 0, 0, 0
    missing_lft = [n['name'] for n in f.switches() if n['guid'] not in lfts]
    if missing_lft:
        errors.append(f'no LFT read from {len(missing_lft)} switches, e.g. {missing_lft[:3]}')
    for lid, dest_guid, dest_port in dests:
        # Each switch's outcome for this LID, computed once: a walk stops at the first switch
        # whose outcome is known, so the whole check is O(switches x LIDs).
        outcome = {}
        for sw in f.switches():
            if sw['guid'] not in lfts:
                continue
            # dump_fts leaves out the top LID when it opens a new 64-entry block: ibtracert
            # covers that LID (see `pairs`).
            if lid == max_lid and lid % 64 == 0 and lid not in lfts[sw['guid']]:
                skipped += 1
                continue
            pairs += 1
            path, node, why = [], sw, None
            while why is None:
                if node['guid'] in outcome:
                    why = outcome[node['guid']]
                    break
                if node['guid'] in path:
                    why = 'loop through ' + node['name']
                    break
                path.append(node['guid'])
                port = lfts.get(node['guid'], {}).get(lid)
                if port is None:
                    why = f'no entry at {node["name"]}'
                    break
                peer = node['links'].get(port)
                if peer is None:
                    why = f'{node["name"]} port {port} has no link'
                    break
                node = f.nodes[peer[0]]
                if node['kind'] == 'ca':
                    why = '' if node['guid'] == dest_guid and peer[1] == dest_port else \
                        f'delivered to {node["name"]} port {peer[1]}'
                    break
            for g in path:
                outcome[g] = why
            if why == '':
                delivered += 1
            else:
                errors.append(f'{sw["name"]} -> LID {lid} ({f.nodes[dest_guid]["name"]}): {why}')
    for e in errors[:10]:
        print('  ' + e)
    if len(errors) > 10:
        print(f'  ... {len(errors) - 10} more')
    print(f'routes: {pairs} (switch, CA LID) walks over {len(lfts)} LFTs, {delivered} delivered'
          + (f', {skipped} to top LID {max_lid} left to ibtracert' if skipped else '')
          + (' OK' if not errors and pairs > 0 else f': {len(errors)} failed'))
    return not errors and pairs > 0


def link_loads(ibnet, fts):
    """All-to-all routes per directed switch-to-switch link: for each CA LID, the CAs behind
    each switch flow along its LFT entry (each switch's outcome once), as fabric/metrics.h
    counts them; prints the maximum and the mean over every such link."""
    f = Fabric(ibnet)
    lfts, _ = read_lfts(fts)
    behind = {}  # switch GUID -> its CA ports (sources)
    for n in f.cas():
        for port, (sw, _) in n['links'].items():
            if f.nodes[sw]['kind'] == 'switch':
                behind[sw] = behind.get(sw, 0) + 1
    load = {}
    for sw in f.switches():
        for port, (peer, _) in sw['links'].items():
            if f.nodes[peer]['kind'] == 'switch':
                load[(sw['guid'], port)] = 0
    for lid, dest_guid, dest_port in f.ca_lids():
        dest_sw = f.nodes[dest_guid]['links'][dest_port][0]
        nxt = {}  # switch -> (next switch, port) toward the LID; None where it stops
        for sw in f.switches():
            port = lfts.get(sw['guid'], {}).get(lid)
            peer = sw['links'].get(port) if port else None
            nxt[sw['guid']] = (peer[0], port) if peer and f.nodes[peer[0]]['kind'] == 'switch' else None
        for src, n in behind.items():
            flows = n - (1 if src == dest_sw else 0)
            at, seen = src, set()
            while flows and nxt.get(at) and at not in seen:
                seen.add(at)
                load[(at, nxt[at][1])] += flows
                at = nxt[at][0]
    values = list(load.values())
    print(max(values), round(sum(values) / len(values), 4))
    return True


def pick_corruption(ibnet, fts):
    """For the negative control: "DRPATH LID PORT CA-GUID SRC-LID": the LFT entry that, set to
    PORT, sends the LID of CA-GUID back up an uplink at the switch the CA hangs off instead of
    down to it; and a CA LID on another switch to ibtracert from."""
    f = Fabric(ibnet)
    paths = {}
    lfts, _ = read_lfts(fts, paths)
    for lid, ca_guid, _ in f.ca_lids()[1:]:  # not the SM's own CA
        for sw in sorted(f.switches(), key=lambda n: n['guid']):
            lft = lfts.get(sw['guid'], {})
            down = lft.get(lid)
            if down is None or sw['links'].get(down, (None,))[0] != ca_guid:
                continue
            ups = [p for p, (g, _) in sorted(sw['links'].items()) if f.nodes[g]['kind'] == 'switch']
            elsewhere = [l for l, g, _ in f.ca_lids()
                         if f.nodes[g]['links'].get(1, (sw['guid'],))[0] != sw['guid']]
            if ups and elsewhere and sw['guid'] in paths:
                print(paths[sw['guid']], lid, ups[0], f'{ca_guid:#018x}', elsewhere[-1])
                return True
    return False


def sample_pairs(ibnet, n):
    f = Fabric(ibnet)
    dests = f.ca_lids()
    rng = random.Random(1)
    out = []
    if len(dests) >= 2:
        top = dests[-1]
        out.append((dests[0], top))  # the highest CA LID, which dump_fts may leave out
        while len(out) < n:
            a, b = rng.sample(dests, 2)
            out.append((a, b))
    for (slid, _, _), (dlid, dguid, _) in out:
        print(slid, dlid, f'{dguid:#018x}')
    return True


def sample_lids(ibnet, n):
    """N sampled "LID port": CA ports with their port number, switches with port 0."""
    f = Fabric(ibnet)
    rng = random.Random(2)
    cas = [(lid, port) for lid, _, port in f.ca_lids()]
    sws = sorted((s['lid'], 0) for s in f.switches())
    picked = rng.sample(cas, min(len(cas), (n + 1) // 2)) + rng.sample(sws, min(len(sws), n // 2))
    for lid, port in picked:
        print(lid, port)
    return True


def check_links(iblinkinfo):
    up, bad = 0, []
    for line in open(iblinkinfo):
        if '==(' not in line or 'LinkUp' not in line:
            continue
        up += 1
        if 'Active/' not in line:
            bad.append(line.strip())
    for b in bad[:10]:
        print('  ' + b)
    print(f'links: {up} port ends with the link up, {len(bad)} not Active' + (' OK' if not bad and up else ''))
    return up > 0 and not bad


def lid_of(ibnet, name):
    """The LID of the switch whose description is `name`."""
    for n in Fabric(ibnet).switches():
        if n['name'] == name:
            print(n['lid'])
            return True
    return False


def netfile_peer(netfile, node, port):
    """'"REMOTE"[PORT]': the other end of a cable, as the net file lists it."""
    cur = None
    for line in open(netfile):
        m = re.match(r'^(Switch|Hca|Ca)\s+\d+\s+"([^"]*)"', line)
        if m:
            cur = m.group(2)
            continue
        m = PORT_LINE.match(line)
        if m and cur == node and int(m.group(1)) == int(port):
            print(f'"{m.group(3)}"[{m.group(4)}]')
            return True
    return False


def main(argv):
    cmds = {
        'lid-of': lambda a: lid_of(a[0], a[1]),
        'peer': lambda a: netfile_peer(a[0], a[1], a[2]),
        'topology': lambda a: check_topology(a[0], a[1], a[2]),
        'routes': lambda a: check_routes(a[0], a[1]),
        'pairs': lambda a: sample_pairs(a[0], int(a[1])),
        'lids': lambda a: sample_lids(a[0], int(a[1])),
        'links': lambda a: check_links(a[0]),
        'loads': lambda a: link_loads(a[0], a[1]),
        'corrupt': lambda a: pick_corruption(a[0], a[1]),
    }
    if len(argv) < 2 or argv[1] not in cmds:
        print(__doc__)
        return 2
    return 0 if cmds[argv[1]](argv[2:]) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
