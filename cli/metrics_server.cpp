#include "cli/metrics_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <exception>
#include <thread>

namespace cli {

namespace {
// Prometheus scrapes one at a time; two threads leave room for a curl beside it.
constexpr size_t kHttpThreads = 2;
}  // namespace

struct MetricsServer::Thread {
  std::thread t;
};

MetricsServer::MetricsServer() : http_(std::make_unique<httplib::Server>()), thread_(std::make_unique<Thread>()) {}

MetricsServer::~MetricsServer() {
  if (thread_->t.joinable()) {
    http_->stop();
    thread_->t.join();
  }
}

MetricsServer::Published MetricsServer::latest() const {
  std::lock_guard lock(mu_);
  return published_;
}

void MetricsServer::publish(std::shared_ptr<const metrics::SmFigures> sm,
                            std::shared_ptr<const sm::perfmgr::Snapshot> perf) {
  Published next{std::move(sm), std::move(perf)};
  std::lock_guard lock(mu_);
  std::swap(published_, next);
  // `next` (the values before) is released after the lock: the last owner of a large
  // Snapshot frees it outside the critical section.
}

mad::Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const ListenAddress& at) {
  std::unique_ptr<MetricsServer> s(new MetricsServer());
  httplib::Server& http = *s->http_;
  http.new_task_queue = [] { return new httplib::ThreadPool(kHttpThreads); };
  // httplib's default adds SO_REUSEPORT, which lets a second daemon bind the same port and
  // take half the scrapes: SO_REUSEADDR only (a restart still binds past TIME_WAIT).
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  MetricsServer* self = s.get();
  http.Get("/metrics", [self](const httplib::Request&, httplib::Response& res) {
    Published p = self->latest();
    self->scrapes_.fetch_add(1);
    // Rendered while it is sent, in pieces of 1 MiB: a page of 240k ports never sits whole
    // in memory, and a client that leaves stops the rendering.
    res.set_chunked_content_provider(std::string(metrics::kContentType),
                                     [p = std::move(p)](size_t, httplib::DataSink& sink) {
                                       std::string rest = metrics::render_page(
                                           p.sm.get(), p.perf.get(),
                                           [&sink](std::string_view piece) { return sink.write(piece.data(), piece.size()); });
                                       if (!rest.empty() && !sink.write(rest.data(), rest.size())) return false;
                                       sink.done();
                                       return true;
                                     });
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404) res.set_content("not found; the metrics are at /metrics\n", "text/plain");
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("internal error\n", "text/plain");
  });
  bool bound = false;
  try {
    bound = http.bind_to_port(at.host, at.port);
  } catch (const std::exception& e) {
    return mad::fail(mad::Errc::io, fmt::format("metrics_listen {}: {}", at.str(), e.what()));
  }
  if (!bound)
    return mad::fail(mad::Errc::io, fmt::format("metrics_listen {}: cannot listen there (address in use, or not "
                                                "an address of this host)", at.str()));
  s->thread_->t = std::thread([&http] {
    try {
      http.listen_after_bind();
    } catch (...) {  // httplib may throw; the SM goes on without its endpoint
    }
  });
  // stop() before the server runs would be lost and the join would hang: wait for it.
  for (int i = 0; i < 2000 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return s;
}

}  // namespace cli
