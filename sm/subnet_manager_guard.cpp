// Keeping the fabric true against what the SM did not do itself: reads that stayed unanswered
// (holes: retried, never taken for an absence), LFT blocks changed behind its back (verified
// by light sweeps and on request), and another SM acting as master (undone on every light
// sweep while it lasts).
#include "sm/subnet_manager.h"

namespace sm {

void SubnetManager::note_holes(const WalkSummary& walk) {
  const HoleSet now(walk.holes.begin(), walk.holes.end());
  // What answered this time is no hole any more: every hole of a full walk, the refreshed
  // nodes' of a partial one.
  const std::set<Guid> looked(walk.changed.begin(), walk.changed.end());
  for (auto it = misses_.begin(); it != misses_.end();) {
    const bool examined = report_.heavy || looked.contains(it->first.node);
    if (examined && !now.contains(it->first)) {
      left_out_.erase(it->first);
      it = misses_.erase(it);
    } else {
      ++it;
    }
  }
  bool newly_left_out = false;
  for (const Hole& h : now) {
    if (++misses_[h] < kLeaveOut || !left_out_.insert(h).second) continue;
    newly_left_out = true;
    log_.warn(code::hole_left_out, "{} did not answer in {} sweeps in a row: left out", h.str(), kLeaveOut);
  }
  for (const Hole& h : now) {
    if (left_out_.contains(h)) continue;
    ++blocking_holes_;
    if (h.node.is_zero()) retry_all_ = true;
    retry_.insert(h.node);
  }
  for (Guid g : walk.kept.nodes) retry_.insert(g);
  report_.holes = blocking_holes_;
  report_.left_out = now.size() - blocking_holes_;
  report_.kept_nodes = walk.kept.nodes.size();
  if (blocking_holes_)
    log_.warn(code::holes_kept, "sweep {}: {} read(s) unanswered, {}; retried next", report_.number, blocking_holes_,
              report_.heavy ? fmt::format("{} node(s) and {} attribute(s) kept as known before, {} never known",
                                          walk.kept.nodes.size(), walk.kept.attributes, walk.kept.unknown)
                            : std::string("what was known of them kept"));
  // What is left out may still be in the model (kept by a full walk, or known to a partial
  // one): a full walk without it.
  if (newly_left_out) pending_.want_heavy("parts that never answered are left out");
}

std::string SubnetManager::rogue_evidence(const LightSweep::Result& r) const {
  for (const ha::Peer& p : ha_.role().peers())
    if (p.answered && !p.believed && p.info.state == mad::SmState::master)
      return fmt::format("SM {} (priority {}, another SM_Key) is in Master state", p.port, p.info.priority);
  const auto s = published_;
  if (r.own && s && s->sm.lid.is_unicast()) {
    if (r.own->lid != s->sm.lid)
      return fmt::format("this SM's port was given LID {} (it holds {})", r.own->lid, s->sm.lid);
    if (r.own->master_sm_lid != s->sm.lid)
      return fmt::format("this SM's port points at LID {} as its master", r.own->master_sm_lid);
  }
  return "";
}

// Without IsSM on its port this SM is not found by SA clients (saquery -s) nor by other SMs
// looking for the master's port, though it still runs the subnet.
void SubnetManager::check_is_sm(const LightSweep::Result& r) {
  if (!r.own || r.own->has_cap(mad::port_cap::is_sm)) {
    is_sm_lost_ = false;
    return;
  }
  auto taken = transport_.retake_is_sm();
  if (taken || !is_sm_lost_)
    log_.warn(code::is_sm_retaken, "the SM's own port had lost IsSM (another SM process on this port?): {}",
              taken ? std::string("taken again") : "cannot take it again: " + taken.error().message);
  is_sm_lost_ = !taken;
}

// While another SM acts as master every light sweep is a heavy sweep that reads every table
// back: whatever it changed (MasterSMLID, LIDs, LFTs) is put back each time, and once it is
// gone the first light sweep leaves the fabric whole. (M_Key is what stops its writes.)
void SubnetManager::check_rogue(const LightSweep::Result& r) {
  std::string evidence = rogue_evidence(r);
  if (evidence.empty()) {
    if (!rogue_.empty())
      log_.warn(code::rogue_gone, "security: no other SM acts as master any more (was: {}); the subnet is this SM's",
                rogue_);
    rogue_.clear();
    return;
  }
  if (rogue_.empty())
    log_.error(code::rogue_master,
               "security: another SM acts as master: {}; not believed, its changes are undone on every light sweep",
               evidence);
  rogue_ = evidence;
  request_sweep("another SM acts as master: " + evidence, true);
}

void SubnetManager::verify_lfts() {
  const auto s = published_;
  if (!master_ || !up_ || !s || !s->tables || !s->topology || cfg_.lft_verify_pass <= 0) return;
  auto blocks = next_blocks(*s->topology, *s->tables, static_cast<size_t>(cfg_.lft_verify_pass), cfg_.lft_verify_max,
                            verify_cursor_);
  if (blocks.empty()) return;
  verifier_ = std::make_unique<LftVerifier>(client_, lft_memory_);
  verifier_->start(s->topology, s->tables, std::move(blocks), [this] {
    const LftVerifier::Result r = verifier_->result();
    verifier_.reset();  // in its own callback: it touches nothing after calling it
    log_.debug(code::lft_verified, "light sweep: {} LFT block(s) read back, {} rewritten, {} unanswered", r.read,
               r.rewritten, r.failed);
    log_tampered(r.tampered, "a light sweep");
  });
}

void SubnetManager::log_tampered(const Tampered& t, std::string_view found_by) {
  for (const auto& [sw, blocks] : t) {
    const NodeRec* n = model_.find(sw);
    std::string list;
    for (size_t i = 0; i < blocks.size() && i < 16; ++i) list += fmt::format("{}{}", i ? ", " : "", blocks[i]);
    if (blocks.size() > 16) list += fmt::format(" and {} more", blocks.size() - 16);
    log_.error(code::lft_tampered,
               "security: {} found the LFT of switch {} ({}) changed behind this SM's back in {} block(s): {}; "
               "rewritten",
               found_by, sw, n ? n->description : "?", blocks.size(), list);
  }
}

// Health findings (sm/perfmgr/) take cables out of the routes and give them back: the switches
// at their ends are re-read at once, and that reaction's routing (a repair when cables went,
// in full when they came back) sees the fabric without them.
void SubnetManager::set_isolated(std::set<std::pair<Guid, uint8_t>> cables) {
  if (cables == isolated_) return;
  std::set<Guid> ends;
  for (const auto& c : cables)
    if (!isolated_.contains(c)) ends.insert(c.first);
  for (const auto& c : isolated_)
    if (!cables.contains(c)) ends.insert(c.first);
  isolated_ = std::move(cables);
  for (Guid g : ends) mark_dirty(g, "cables isolated or given back for their health");
}

}  // namespace sm
