// The launcher-free mode's ranks (real/thread_team.hpp): threads of one process that coordinate
// like MPI ranks. Each collective is held to what MPI would give on the same inputs: broadcasts
// carry the root's bytes, sums add in rank order, gathers keep rank order, splits order by key then
// rank, and a failing rank releases the others instead of leaving them waiting.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <thread>

#include "core/base/error.hpp"
#include "real/thread_team.hpp"

using namespace dtsim;
using namespace dtsim::real;

TEST_CASE("a team's ranks see their rank, the team size and one host") {
  std::mutex m;
  std::vector<int> seen;
  const int code = run_team(4, [&](HostComm& c) {
    CHECK(c.size() == 4);
    CHECK(c.local_size() == 4);
    CHECK(c.local_rank() == c.rank());
    CHECK(c.hosts() == 1);
    CHECK(c.mpi() == MPI_COMM_NULL);
    CHECK(c.started() == "--gpus gave 4");
    std::lock_guard lock(m);
    seen.push_back(c.rank());
    return c.rank() == 2 ? 7 : 0;  // the team's code is the largest
  });
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<int>{0, 1, 2, 3});
  CHECK(code == 7);
}

TEST_CASE("a team's collectives give what MPI would") {
  const int n = 5;
  run_team(n, [&](HostComm& c) {
    const int r = c.rank();
    // Broadcast: the root's bytes everywhere, from any root.
    for (int root = 0; root < n; ++root) {
      long value = r == root ? 1000 + root : -1;
      c.broadcast_value(value, root);
      CHECK(value == 1000 + root);
    }
    // Reductions, element-wise: ranks give r and 10 - r.
    std::vector<double> d{static_cast<double>(r), 10.0 - r};
    c.allreduce(std::span<double>(d), HostComm::Reduce::Sum);
    CHECK(d == std::vector<double>{10.0, 40.0});  // 0+1+2+3+4, 10*5-10
    std::vector<float> f{static_cast<float>(r), 10.0f - r};
    c.allreduce(std::span<float>(f), HostComm::Reduce::Max);
    CHECK(f == std::vector<float>{4.0f, 10.0f});
    CHECK(c.allreduce_value(r + 0.5, HostComm::Reduce::Min) == 0.5);
    // Sums in rank order: 1e16 + 1 - 1e16 + ... is what rank order gives, not a sorted order.
    const double terms[5] = {1e16, 1.0, -1e16, 1.0, 1.0};
    CHECK(c.allreduce_value(terms[r], HostComm::Reduce::Sum) == ((1e16 + 1.0) - 1e16) + 1.0 + 1.0);
    // Gathers keep rank order; gather() gives rank 0 alone.
    const std::vector<std::string> all = c.allgather(std::string(static_cast<size_t>(r), 'x'));
    REQUIRE(all.size() == n);
    for (int i = 0; i < n; ++i) CHECK(all[static_cast<size_t>(i)] == std::string(static_cast<size_t>(i), 'x'));
    const std::vector<std::string> at_root = c.gather("rank" + std::to_string(r));
    if (r == 0) {
      CHECK(at_root == std::vector<std::string>{"rank0", "rank1", "rank2", "rank3", "rank4"});
    } else {
      CHECK(at_root.empty());
    }
    // Op records: every rank's, in rank order, on rank 0.
    const std::vector<OpRecord> records = gather_records({OpRecord{r, 1, r, r * 1.0, r * 2.0}}, c);
    if (r == 0) {
      REQUIRE(records.size() == n);
      for (int i = 0; i < n; ++i) {
        CHECK(records[static_cast<size_t>(i)].rank == i);
        CHECK(records[static_cast<size_t>(i)].end == i * 2.0);
      }
    }
    return 0;
  });
}

TEST_CASE("a team splits into sub-teams by color, ordered by key then rank") {
  run_team(6, [&](HostComm& c) {
    const int r = c.rank();
    // Even and odd ranks, keys reversed: rank 4 is rank 0 of the evens. Rank 5 stays out.
    std::unique_ptr<HostComm> part = c.split(r == 5 ? -1 : r % 2, -r);
    if (r == 5) {
      CHECK(part == nullptr);
    } else {
      REQUIRE(part != nullptr);
      CHECK(part->size() == (r % 2 == 0 ? 3 : 2));
      const int expected_rank = r % 2 == 0 ? (4 - r) / 2 : (3 - r) / 2;
      CHECK(part->rank() == expected_rank);
      // A sum over the sub-team only.
      CHECK(part->allreduce_value(r, HostComm::Reduce::Sum) == (r % 2 == 0 ? 0 + 2 + 4 : 1 + 3));
      // Sub-teams of a sub-team.
      std::unique_ptr<HostComm> pair = part->split(part->rank() < 2 ? 0 : -1, part->rank());
      if (part->rank() < 2) {
        REQUIRE(pair != nullptr);
        CHECK(pair->size() == 2);
        CHECK(pair->allgather("a").size() == 2);
      }
    }
    // The parent still works after its splits.
    CHECK(c.allreduce_value(1, HostComm::Reduce::Sum) == 6);
    return 0;
  });
}

TEST_CASE("a team's clock starts at 0 for every rank together and moves forward") {
  std::vector<double> starts(3);
  run_team(3, [&](HostComm& c) {
    const Clock clock = c.aligned_clock();
    const double t0 = clock.now();
    starts[static_cast<size_t>(c.rank())] = t0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(clock.now() >= t0 + 4e-3);
    return 0;
  });
  for (double t : starts) {
    CHECK(t >= 0);
    CHECK(t < 0.5);  // read right after the start barrier (generous: a loaded CI core)
  }
}

TEST_CASE("a rank that fails releases the others, and its error is the team's") {
  std::atomic<int> released{0};
  const auto start = std::chrono::steady_clock::now();
  try {
    run_team(4, [&](HostComm& c) {
      if (c.rank() == 2) throw RuntimeError("rank 2 broke");
      try {
        c.barrier();  // rank 2 never arrives
      } catch (const TeamAborted&) {
        ++released;
        throw;
      }
      return 0;
    });
    FAIL("run_team returned");
  } catch (const TeamAborted&) {
    FAIL("the team's error is TeamAborted, not rank 2's");
  } catch (const RuntimeError& e) {
    CHECK(std::string(e.what()).find("rank 2 broke") != std::string::npos);
  }
  CHECK(released == 3);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}
