// The API's endpoints, one function each (api.cpp routes to them).
#pragma once

#include "web/api_parts.h"

namespace web {

Answer summary(const Params& p, const Context& c);
Answer nodes(const Params& p, const Context& c);
Answer node(std::string_view which, const Params& p, const Context& c);
Answer links(const Params& p, const Context& c);
Answer topology(const Params& p, const Context& c);
Answer route(const Params& p, const Context& c);
Answer lft(const Params& p, const Context& c);
Answer counters(const Params& p, const Context& c);
Answer events(const Params& p, const Context& c);
Answer routing_metrics(const Params& p, const Context& c);

Json event_json(const sm::store::Event& e);

}  // namespace web
