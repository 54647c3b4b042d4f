// The web view's HTTP side (option web_listen; `fabricsm sim --serve`): the embedded page and
// /api/... on a cpp-httplib server with threads of its own. The loop publishes immutable
// values by pointer under a short mutex, as it does for the metrics endpoint; a request copies
// them and renders on the HTTP thread. With an access token (any address but loopback needs
// one), a request must carry it: a cookie set by the login form, or `Authorization: Bearer`.
// Read-only: nothing here changes the SM.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/http_listen.h"
#include "cli/listen_address.h"
#include "mad/error.h"
#include "web/fabric_index.h"
#include "web/published.h"

namespace cli {

struct WebServerOptions {
  ListenAddress at;
  std::string token;  // empty: none asked (loopback only; the configuration checks that)
};

class WebServer {
 public:
  static mad::Result<std::unique_ptr<WebServer>> start(const WebServerOptions& o);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // The store, read-only beside its writer, for counter samples and the cables gone before
  // this process (once the daemon has opened or created it). An error leaves the view without.
  mad::Result<void> attach_store(const std::string& db_path);
  void publish(web::Published p);
  uint64_t requests() const { return requests_.load(); }

 private:
  WebServer() = default;
  web::Published latest() const;
  std::shared_ptr<const web::FabricIndex> index_for(const std::shared_ptr<const sm::Subnet>& s);

  mutable std::mutex mu_;
  web::Published published_;
  std::mutex index_mu_;
  std::shared_ptr<const web::FabricIndex> index_;
  std::vector<web::GoneCable> seed_;  // the store's gone cables, for the first index
  std::mutex store_mu_;
  std::unique_ptr<sm::store::Store> store_;
  std::string token_;
  std::atomic<uint64_t> requests_{0};
  std::unique_ptr<HttpListener> http_;  // last, so the first to go
};

}  // namespace cli
