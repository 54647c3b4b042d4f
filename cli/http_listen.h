// What the metrics endpoint and the web view share of serving HTTP: a cpp-httplib server bound
// to one address (SO_REUSEADDR only: httplib's SO_REUSEPORT would let a second daemon bind the
// same port and take half the requests), listening on a thread of its own, stopped and joined
// when this goes.
#pragma once

#include <memory>
#include <string_view>
#include <thread>

#include "cli/listen_address.h"
#include "mad/error.h"

namespace httplib {
class Server;
}

namespace cli {

class HttpListener {
 public:
  // `option` names the setting in errors ("metrics_listen 127.0.0.1:9684: ...").
  static mad::Result<std::unique_ptr<HttpListener>> start(std::unique_ptr<httplib::Server> server, const ListenAddress& at,
                                                          std::string_view option);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

 private:
  explicit HttpListener(std::unique_ptr<httplib::Server> s);
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
};

}  // namespace cli
