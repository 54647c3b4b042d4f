// The local control socket: `fabricsm status` asks a running daemon what it is doing, and can
// ask it to sweep. A Unix stream socket with owner-only permissions; one request line per
// connection ("status", "resweep"), one answer (JSON), then the connection closes. A thread
// accepts and reads; the daemon's event loop answers from take() between events, so the SM
// itself is only ever touched by its own thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mad/error.h"

namespace cli {

class ControlServer {
 public:
  struct Request {
    std::string line;  // the command, without the newline
    std::function<void(std::string)> reply;  // call once, from any thread
  };

  static mad::Result<std::unique_ptr<ControlServer>> listen(const std::string& path);
  ~ControlServer();

  // Requests that arrived since the last call.
  std::vector<Request> take();

 private:
  ControlServer(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void serve();

  int fd_;
  std::string path_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Request> pending_;
  bool stopping_ = false;
};

// The client side: sends one request line and returns the answer.
mad::Result<std::string> control_request(const std::string& path, const std::string& line,
                                         int timeout_ms = 5000);

}  // namespace cli
