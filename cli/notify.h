// The systemd notify protocol (sd_notify), spoken directly: one datagram per message to the
// socket in $NOTIFY_SOCKET ("@name" is Linux's abstract namespace). No libsystemd needed, and
// a test can own the socket. Without $NOTIFY_SOCKET every call is a no-op.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mad/error.h"
#include "mad/transport.h"

namespace cli {

class Notifier {
 public:
  static Notifier from_environment();
  Notifier() = default;

  bool enabled() const { return !socket_.empty(); }
  // "READY=1", "STATUS=...", "WATCHDOG=1", "STOPPING=1", "RELOADING=1", lines joined by '\n'.
  mad::Result<void> send(std::string_view message) const;
  // How often to send WATCHDOG=1: half of $WATCHDOG_USEC, when it is set for this process.
  std::optional<mad::Nanos> watchdog_interval() const { return watchdog_; }

 private:
  std::string socket_;
  std::optional<mad::Nanos> watchdog_;
};

}  // namespace cli
