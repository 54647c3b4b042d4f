// A map whose values are shared, copy-on-write, with the snapshots published from it. A
// snapshot takes a shared pointer to each value it keeps (share()); the owner's first edit of
// a value a snapshot still holds copies that value alone. So a published snapshot never
// changes, publishing costs a pointer per value rather than a copy of them all, and a sweep
// that touches a few switches copies a few records, not the fabric's.
// Values are edited only through edit()/edit_or_add(): a reference from find() is read-only.
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>

namespace sm {

template <class K, class V, class Hash = std::hash<K>>
class CowMap {
 public:
  const V* find(const K& k) const {
    auto it = map_.find(k);
    return it == map_.end() ? nullptr : it->second.get();
  }
  // The value to change (nullptr when absent), no longer shared with any snapshot.
  V* edit(const K& k) {
    auto it = map_.find(k);
    if (it == map_.end()) return nullptr;
    return own(it->second);
  }
  V& edit_or_add(const K& k) {
    auto [it, fresh] = map_.try_emplace(k);
    if (fresh) it->second = std::make_shared<V>();
    return *own(it->second);
  }
  void put(const K& k, V v) { map_[k] = std::make_shared<V>(std::move(v)); }
  // The value as it is now, for a snapshot (null when absent); later edits do not reach it.
  std::shared_ptr<const V> share(const K& k) const {
    auto it = map_.find(k);
    return it == map_.end() ? nullptr : it->second;
  }
  bool erase(const K& k) { return map_.erase(k) != 0; }
  template <class Pred>
  void erase_if(Pred pred) {  // pred(const K&, const V&)
    for (auto it = map_.begin(); it != map_.end();) it = pred(it->first, *it->second) ? map_.erase(it) : std::next(it);
  }
  void clear() { map_.clear(); }
  void reserve(size_t n) { map_.reserve(n); }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  bool contains(const K& k) const { return map_.contains(k); }
  // Every entry, read-only, in no particular order: f(const K&, const V&).
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [k, v] : map_) f(k, *v);
  }

 private:
  static V* own(std::shared_ptr<V>& p) {
    // use_count() == 1: no snapshot holds it, and none can take it without going through this map.
    if (p.use_count() > 1) p = std::make_shared<V>(*p);
    return p.get();
  }
  std::unordered_map<K, std::shared_ptr<V>, Hash> map_;
};

}  // namespace sm
