#include "cli/metrics_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <exception>

namespace cli {

namespace {
// Prometheus scrapes one at a time; two threads leave room for a curl beside it.
constexpr size_t kHttpThreads = 2;
}  // namespace

MetricsServer::~MetricsServer() = default;

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
  auto server = std::make_unique<httplib::Server>();
  httplib::Server& http = *server;
  http.new_task_queue = [] { return new httplib::ThreadPool(kHttpThreads); };
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
  auto l = HttpListener::start(std::move(server), at, "metrics_listen");
  if (!l) return std::unexpected(l.error());
  s->http_ = std::move(*l);
  return s;
}

}  // namespace cli
