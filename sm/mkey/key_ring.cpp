#include "sm/mkey/key_ring.h"

#include "mad/attributes.h"

namespace sm::mkey {

void KeyRing::configure(uint64_t key, Secret secret) {
  if (key == key_ && secret == secret_) return;
  key_ = key;
  secret_ = std::move(secret);
  deriver_ = KeyDeriver(secret_);
  derived_.clear();
  found_.clear();
  last_.valid = false;
  for (PathMap& m : at_path_)
    for (auto& [path, at] : m) at.own = protects() ? own_key(at.port) : 0;
}

KeyRing KeyRing::for_planning() const {
  KeyRing r;
  r.key_ = key_;
  r.secret_ = secret_;
  r.deriver_ = deriver_;
  r.found_ = found_;
  r.refusing_ = refusing_;
  return r;
}

uint64_t KeyRing::own_key(Guid port) const {
  if (secret_.empty()) return key_;
  if (port.is_zero()) return 0;
  auto [it, fresh] = derived_.try_emplace(port.value(), 0);
  if (fresh) it->second = deriver_.derive(port);
  return it->second;
}

size_t KeyRing::PathHash::operator()(const DrPath& p) const {
  uint64_t h = 0xcbf29ce484222325ULL ^ static_cast<uint64_t>(p.hops());  // FNV-1a over the hops
  for (int i = 1; i <= p.hops(); ++i) h = (h ^ p.at(i).value()) * 0x100000001b3ULL;
  return static_cast<size_t>(h);
}

uint64_t KeyRing::for_port(Guid port) const {
  if (!found_.empty())
    if (auto it = found_.find(port.value()); it != found_.end()) return it->second;
  return own_key(port);
}

uint64_t KeyRing::for_path(const DrPath& path) const {
  if (!protects() && found_.empty()) return 0;
  if (last_.valid && last_.path == path) return last_.key;
  const At* a = at(path);
  const uint64_t key = !a ? (secret_.empty() ? key_ : 0) : found_.empty() ? a->own : for_port(a->port);
  last_ = Last{true, path, key};
  return key;
}

uint64_t KeyRing::for_lid(Lid lid) const {
  if (!protects() && found_.empty()) return 0;
  const Guid at = port_at(lid);
  return at.is_zero() ? (secret_.empty() ? key_ : 0) : for_port(at);
}

Guid KeyRing::port_at(const DrPath& path) const {
  const At* a = at(path);
  return a ? a->port : Guid();
}

Guid KeyRing::port_at(Lid lid) const {
  auto it = at_lid_.find(lid.value());
  return it == at_lid_.end() ? Guid() : it->second;
}

void KeyRing::note_answer(const mad::Smp& answer) {
  if (!answer.is_directed()) return;
  if (answer.attr_id == mad::attr::node_info) {
    if (auto ni = mad::decode_attr<mad::NodeInfo>(answer))
      learn_path(mad::initial_path_of(answer), ni->port_guid, ni->node_type == mad::NodeType::sw);
    return;
  }
  if (answer.attr_id != mad::attr::port_info) return;
  const At* a = at(mad::initial_path_of(answer));
  if (!a) return;
  // A switch has one M_Key, port 0's; a CA answers for the port the SMP came in by.
  if (a->is_switch && (answer.attr_mod & 0xFF) != 0) return;
  auto pi = mad::decode_attr<mad::PortInfo>(answer);
  if (!pi || pi->m_key == 0) return;  // no key, or one the port does not show
  const Guid port = a->port;
  if (pi->m_key == own_key(port)) settled(port);
  else found(port, pi->m_key);
}

void KeyRing::learn_path(const DrPath& path, Guid port, bool is_switch) {
  if (port.is_zero()) return;
  shard(path)[path] = At{port, is_switch, protects() ? own_key(port) : 0};
  if (last_.valid && last_.path == path) last_.valid = false;
}

void KeyRing::learn_lid(Lid lid, Guid port) {
  if (port.is_zero() || !lid.is_unicast()) return;
  at_lid_[lid.value()] = port;
}

}  // namespace sm::mkey
