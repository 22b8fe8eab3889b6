// Timed benchmark of dtsim-gui on a synthetic trace of a million events: how long opening it
// takes (read + parse + lanes) and how long one redraw of the timeline takes, fitted to the
// whole run and zoomed in, at 1920x1080 on the offscreen platform.
//   build/bin/bench_gui [EVENTS]      (default 1000000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <QApplication>

#include "gui/model/lod.hpp"
#include "gui/model/trace_model.hpp"
#include "gui/widgets/timeline_widget.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// 64 ranks on 16 nodes, a compute and a comm lane each: forward/backward layers, waits, AllReduce buckets.
void write_trace(const std::string& path, long events) {
  std::ofstream out(path);
  out << "{\"traceEvents\":[\n";
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const int ranks = 64;
  const long per_rank = events / ranks;
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (int r = 0; r < ranks; ++r) {
    sep();
    out << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << r / 4 << ",\"tid\":" << r * 3
        << ",\"args\":{\"name\":\"rank " << r << " compute\"}}";
    double t = 0, comm_t = 0;
    for (long i = 0, it = 0; i < per_rank; ++it) {
      for (int layer = 0; layer < 100 && i < per_rank; ++layer, ++i) {
        const bool fwd = layer < 50;
        const double d = u(rng) * 40;
        sep();
        out << "{\"name\":\"" << (fwd ? "fwd layer" : "bwd layer") << layer % 50 << "\",\"cat\":\""
            << (fwd ? "forward" : "backward") << "\",\"ph\":\"X\",\"ts\":" << t << ",\"dur\":" << d
            << ",\"pid\":" << r / 4 << ",\"tid\":" << r * 3 << ",\"args\":{\"rank\":" << r << ",\"iteration\":" << it
            << ",\"kind\":\"compute\",\"bytes\":0,\"flops\":1e9}}";
        t += d;
        if (!fwd && layer % 10 == 9 && i + 1 < per_rank) {
          comm_t = std::max(comm_t, t);
          const double c = u(rng) * 150;
          sep();
          out << "{\"name\":\"allreduce bucket\",\"cat\":\"communication\",\"ph\":\"X\",\"ts\":" << comm_t
              << ",\"dur\":" << c << ",\"pid\":" << r / 4 << ",\"tid\":" << r * 3 + 1 << ",\"args\":{\"rank\":" << r
              << ",\"iteration\":" << it << ",\"kind\":\"allreduce\",\"bytes\":25000000,\"flops\":0}}";
          comm_t += c;
          ++i;
        }
      }
      if (comm_t > t && i < per_rank) {
        sep();
        out << "{\"name\":\"waiting\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":" << t << ",\"dur\":" << comm_t - t
            << ",\"pid\":" << r / 4 << ",\"tid\":" << r * 3 << ",\"args\":{\"rank\":" << r << ",\"iteration\":" << it
            << ",\"kind\":\"wait\"}}";
        t = comm_t;
        ++i;
      }
    }
  }
  out << "\n]}\n";
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const long events = argc > 1 ? std::atol(argv[1]) : 1000000;
  const std::string path = "/tmp/dtsim_gui_bench_trace.json";
  write_trace(path, events);

  std::vector<double> opens;
  dtsim::gui::Trace trace;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = Clock::now();
    trace = dtsim::gui::load_trace(path);
    opens.push_back(seconds_since(t0));
  }
  std::ifstream size_probe(path, std::ios::ate | std::ios::binary);
  std::printf("trace: %zu events, %zu lanes, %.0f MB\n", trace.events.size(), trace.lanes.size(),
              static_cast<double>(size_probe.tellg()) / 1e6);
  std::printf("open (read + parse + lanes), median of 3: %.3f s\n", median(opens));

  dtsim::gui::TimelineWidget w;
  w.resize(1920, 1080);
  w.set_trace(std::make_shared<const dtsim::gui::Trace>(std::move(trace)));
  auto redraw = [&](const char* what) {
    std::vector<double> times;
    for (int i = 0; i < 20; ++i) {
      const auto t0 = Clock::now();
      w.render_frame();
      times.push_back(seconds_since(t0));
    }
    std::printf("redraw 1920x1080, %s, median of 20: %.1f ms (%zu rectangles)\n", what, median(times) * 1e3,
                w.renderer().rects_drawn());
  };
  w.fit();
  redraw("whole run");
  {
    // The level-of-detail aggregation alone, without painting.
    std::vector<double> times;
    std::vector<dtsim::gui::LodRect> rects;
    for (int i = 0; i < 20; ++i) {
      const auto t0 = Clock::now();
      for (size_t l = 0; l < w.trace()->lanes.size(); ++l) {
        rects.clear();
        dtsim::gui::aggregate_lane_auto(*w.trace(), l, w.axis(), w.lane_width(), {}, rects);
      }
      times.push_back(seconds_since(t0));
    }
    std::printf("  of which level-of-detail aggregation of all lanes: %.1f ms\n", median(times) * 1e3);
  }
  dtsim::gui::TimeAxis zoomed = w.axis();
  zoomed.zoom_at(w.lane_width() / 2.0, 50);
  w.set_axis(zoomed);
  redraw("zoomed in 50x");
  w.set_filter("allreduce|wait");
  w.fit();
  redraw("whole run, filtered");
  std::remove(path.c_str());
  return 0;
}
