#include "cli/web_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/crypto.h>

#include <chrono>
#include <exception>

#include "web/api.h"
#include "web/assets.h"

namespace cli {

namespace {

// A page's API calls come a few at a time; scripts beside them.
constexpr size_t kWebThreads = 4;
constexpr const char* kCookie = "fabricsm_token";

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool same(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// The token a request carries: `Authorization: Bearer T`, or the login cookie.
std::string carried(const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  if (auth.starts_with("Bearer ")) return auth.substr(7);
  const std::string cookies = req.get_header_value("Cookie");
  const std::string key = std::string(kCookie) + "=";
  for (size_t at = 0; at < cookies.size();) {
    size_t end = cookies.find(';', at);
    if (end == std::string::npos) end = cookies.size();
    std::string_view c(cookies.data() + at, end - at);
    while (c.starts_with(' ')) c.remove_prefix(1);
    if (c.starts_with(key)) return std::string(c.substr(key.size()));
    at = end + 1;
  }
  return {};
}

constexpr std::string_view kLogin = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>fabricsm: sign in</title></head>
<body style="font:14px system-ui,sans-serif;margin:3em">
<h1>fabricsm</h1><p>This web view asks for its access token (the file web_token_file names).</p>
<form method="post" action="/login"><input type="password" name="token" size="40" autofocus>
<button>sign in</button></form>%s</body></html>
)";

void secure_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Referrer-Policy", "no-referrer");
  // Everything comes from this server; the legend's swatches use style attributes.
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
}

}  // namespace

WebServer::~WebServer() = default;

web::Published WebServer::latest() const {
  std::lock_guard lock(mu_);
  return published_;
}

void WebServer::publish(web::Published p) {
  std::lock_guard lock(mu_);
  std::swap(published_, p);
  // `p` (the values before) is released after the lock.
}

std::shared_ptr<const web::FabricIndex> WebServer::index_for(const std::shared_ptr<const sm::Subnet>& s) {
  if (!s || !s->topology) return nullptr;
  std::lock_guard lock(index_mu_);
  if (!index_ || &index_->subnet() != s.get()) index_ = web::FabricIndex::build(s, index_.get(), seed_, wall_ms());
  return index_;
}

mad::Result<void> WebServer::attach_store(const std::string& db_path) {
  auto st = sm::store::Store::open({.path = db_path, .read_only = true});
  if (!st) return std::unexpected(st.error());
  auto gone = (*st)->load_gone_cables();
  if (!gone) return std::unexpected(gone.error());
  {
    std::lock_guard lock(index_mu_);
    for (auto& g : *gone)
      seed_.push_back({g.a, g.a_port, std::move(g.a_description), g.b, g.b_port, std::move(g.b_description), g.last_seen_ms});
  }
  std::lock_guard lock(store_mu_);
  store_ = std::move(*st);
  return {};
}

mad::Result<std::unique_ptr<WebServer>> WebServer::start(const WebServerOptions& o) {
  std::unique_ptr<WebServer> w(new WebServer());
  w->token_ = o.token;
  auto server = std::make_unique<httplib::Server>();
  httplib::Server& http = *server;
  http.new_task_queue = [] { return new httplib::ThreadPool(kWebThreads); };
  WebServer* self = w.get();
  auto allowed = [self](const httplib::Request& req) { return self->token_.empty() || same(carried(req), self->token_); };
  auto login_page = [](httplib::Response& res, bool wrong) {
    res.status = 401;
    secure_headers(res);
    std::string page(kLogin);
    page.replace(page.find("%s"), 2, wrong ? "<p style=\"color:#c62828\">That is not the token.</p>" : "");
    res.set_content(page, "text/html; charset=utf-8");
  };
  for (const web::Asset& a : web::assets()) {
    const std::string path = a.path == "/index.html" ? "/" : std::string(a.path);
    http.Get(path, [self, a, allowed, login_page](const httplib::Request& req, httplib::Response& res) {
      self->requests_.fetch_add(1);
      if (!allowed(req)) return login_page(res, false);
      secure_headers(res);
      res.set_header("Cache-Control", "no-cache");
      res.set_content(std::string(a.body), std::string(a.type));
    });
  }
  http.Post("/login", [self, login_page](const httplib::Request& req, httplib::Response& res) {
    self->requests_.fetch_add(1);
    if (self->token_.empty() || !same(req.get_param_value("token"), self->token_)) return login_page(res, !self->token_.empty());
    res.set_header("Set-Cookie", fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict", kCookie, self->token_));
    res.set_redirect("/", 303);
  });
  http.Get(R"(/api/(.+))", [self, allowed](const httplib::Request& req, httplib::Response& res) {
    self->requests_.fetch_add(1);
    secure_headers(res);
    res.set_header("Cache-Control", "no-store");
    if (!allowed(req)) {
      res.status = 401;
      res.set_content(R"j({"error":"an access token is needed (Authorization: Bearer, or the login form)"})j",
                      "application/json");
      return;
    }
    web::Published p = self->latest();
    web::Params params;
    for (const auto& [k, v] : req.params) params.emplace(k, v);
    auto index = self->index_for(p.subnet);
    const std::string path = req.matches[1].str();
    // One connection, for the counter samples only: requests that read it take turns.
    std::unique_lock store_lock(self->store_mu_, std::defer_lock);
    if (path == "counters") store_lock.lock();
    const bool reads_store = store_lock.owns_lock() && self->store_;
    const web::Context ctx{p, index, reads_store ? self->store_.get() : nullptr, wall_ms()};
    web::Answer a = web::answer(path, params, ctx);
    res.status = a.status;
    res.set_content(std::move(a.body), "application/json");
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) res.set_content("not found; the web view is at /\n", "text/plain");
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("internal error\n", "text/plain");
  });
  auto l = HttpListener::start(std::move(server), o.at, "web_listen");
  if (!l) return std::unexpected(l.error());
  w->http_ = std::move(*l);
  return w;
}

}  // namespace cli
