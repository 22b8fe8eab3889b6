// Names and sizes of Plan ops, shared by every executor and the Observer.
#include "core/plan/plan.hpp"

#include "core/base/overloaded.hpp"

namespace dtsim {

const std::vector<Op>& Program::ops() const {
  static const std::vector<Op> none;
  return ops_ ? *ops_ : none;
}

std::vector<Op>& Program::edit() {
  if (!ops_) {
    ops_ = std::make_shared<std::vector<Op>>();
  } else if (ops_.use_count() > 1) {
    ops_ = std::make_shared<std::vector<Op>>(*ops_);
  }
  return *ops_;
}

int Plan::total_ops() const {
  int n = 0;
  for (const auto& r : ranks) n += static_cast<int>(r.ops.size());
  return n;
}

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::Forward: return "forward";
    case Phase::Backward: return "backward";
    case Phase::Communication: return "communication";
    case Phase::Aggregate: return "aggregate";
    case Phase::Optimizer: return "optimizer";
    case Phase::Compression: return "compression";
    case Phase::Recompute: return "recompute";
    case Phase::Framework: return "framework";
  }
  return "?";
}

std::string_view op_kind_name(const OpBody& body) {
  return std::visit(Overloaded{[](const ComputeOp&) -> std::string_view { return "compute"; },
                               [](const CollectiveOp& c) { return collective_name(c.kind); },
                               [](const SendOp&) -> std::string_view { return "send"; },
                               [](const RecvOp&) -> std::string_view { return "recv"; },
                               [](const UpdateOp&) -> std::string_view { return "update"; },
                               [](const GateOp&) -> std::string_view { return "gate"; },
                               [](const QuorumOp&) -> std::string_view { return "quorum"; },
                               [](const GossipOp&) -> std::string_view { return "gossip"; }},
                    body);
}

double op_bytes(const OpBody& body) {
  return std::visit(Overloaded{[](const ComputeOp&) { return 0.0; }, [](const CollectiveOp& c) { return c.bytes; },
                               [](const SendOp& s) { return s.bytes; }, [](const RecvOp& r) { return r.bytes; },
                               [](const UpdateOp&) { return 0.0; }, [](const GateOp&) { return 0.0; },
                               [](const QuorumOp&) { return 0.0; }, [](const GossipOp& g) { return g.bytes; }},
                    body);
}

double op_flops(const OpBody& body) {
  return std::visit(Overloaded{[](const ComputeOp& c) { return c.flops; }, [](const CollectiveOp&) { return 0.0; },
                               [](const SendOp&) { return 0.0; }, [](const RecvOp&) { return 0.0; },
                               [](const UpdateOp& u) { return u.flops; }, [](const GateOp&) { return 0.0; },
                               [](const QuorumOp&) { return 0.0; }, [](const GossipOp&) { return 0.0; }},
                    body);
}

}  // namespace dtsim
