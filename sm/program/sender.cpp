#include "sm/program/sender.h"

namespace sm {

void Sender::run(size_t count, std::function<void(size_t)> issue, std::function<void()> done) {
  issue_ = std::move(issue);
  done_ = std::move(done);
  count_ = count;
  next_ = 0;
  running_ = true;
  begin();  // held until the first items are out, so an empty run still ends once
  end();
}

void Sender::pump() {
  while (next_ < count_ && tx_.queued() == 0 && tx_.outstanding() < static_cast<size_t>(tx_.config().window))
    issue_(next_++);
}

void Sender::end() {
  --pending_;
  pump();
  if (pending_ != 0 || next_ < count_ || !running_) return;
  running_ = false;
  issue_ = nullptr;
  auto d = std::move(done_);
  done_ = nullptr;
  if (d) d();
}

}  // namespace sm
