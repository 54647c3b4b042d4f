#include "cli/http_listen.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <exception>

namespace cli {

HttpListener::HttpListener(std::unique_ptr<httplib::Server> s) : http_(std::move(s)) {}

HttpListener::~HttpListener() {
  if (thread_.joinable()) {
    http_->stop();
    thread_.join();
  }
}

mad::Result<std::unique_ptr<HttpListener>> HttpListener::start(std::unique_ptr<httplib::Server> server,
                                                               const ListenAddress& at, std::string_view option) {
  std::unique_ptr<HttpListener> l(new HttpListener(std::move(server)));
  httplib::Server& http = *l->http_;
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  bool bound = false;
  try {
    bound = http.bind_to_port(at.host, at.port);
  } catch (const std::exception& e) {
    return mad::fail(mad::Errc::io, fmt::format("{} {}: {}", option, at.str(), e.what()));
  }
  if (!bound)
    return mad::fail(mad::Errc::io, fmt::format("{} {}: cannot listen there (address in use, or not "
                                                "an address of this host)", option, at.str()));
  l->thread_ = std::thread([&http] {
    try {
      http.listen_after_bind();
    } catch (...) {  // httplib may throw; the SM goes on without its endpoint
    }
  });
  // stop() before the server runs would be lost and the join would hang: wait for it.
  for (int i = 0; i < 2000 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return l;
}

}  // namespace cli
