// The Prometheus endpoint of `fabricsm run` (option metrics_listen): GET /metrics on a
// cpp-httplib server with threads of its own; anything else is 404. The daemon's loop
// publishes immutable values (the SM's figures, the PerfMgr's Snapshot) by pointer under a
// short mutex; a scrape copies the two pointers and renders the page on the HTTP thread, in
// pieces as it goes, so the loop never waits for a scrape and never renders.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "cli/http_listen.h"
#include "cli/listen_address.h"
#include "mad/error.h"
#include "metrics/sm_metrics.h"
#include "sm/perfmgr/snapshot.h"

namespace cli {

class MetricsServer {
 public:
  // Binds (an error naming the address when it cannot) and serves on threads of its own.
  static mad::Result<std::unique_ptr<MetricsServer>> start(const ListenAddress& at);
  ~MetricsServer();  // stops serving and joins
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The loop's latest values; a null Snapshot: no counter sweep yet (or no PerfMgr).
  void publish(std::shared_ptr<const metrics::SmFigures> sm, std::shared_ptr<const sm::perfmgr::Snapshot> perf);
  uint64_t scrapes() const { return scrapes_.load(); }

 private:
  MetricsServer() = default;
  struct Published {
    std::shared_ptr<const metrics::SmFigures> sm;
    std::shared_ptr<const sm::perfmgr::Snapshot> perf;
  };
  Published latest() const;

  mutable std::mutex mu_;
  Published published_;
  std::atomic<uint64_t> scrapes_{0};
  std::unique_ptr<HttpListener> http_;  // last, so the first to go: no request runs after the rest
};

}  // namespace cli
