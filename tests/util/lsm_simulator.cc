// A synthetic leveled LSM-tree for the live plan's tests. See
// lsm_simulator.h. The leveling rules follow RocksDB's
// VersionStorageInfo::CalculateBaseBytes and ComputeCompactionScore (read
// in 7.8.3; 9.10.0 and 11.8.1 have the same); what matters here is that
// levels fill, overflow, appear and drain the way RocksDB's do, not
// byte-for-byte agreement. RocksDB 6.x raised the base level's target to a
// backed-up L0's size; 7.x merges such an L0 into the base level whole,
// and a fast load then turns the tree upside down. Scored the 6.x way, the
// simulator never reached the state in which the real DB's fast loads
// settled worst (docs/design.md#backlogs).
#include "monkey/tests/util/lsm_simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "monkey/util/monkey_bpk.h"

namespace monkey::test {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A key position as a string that sorts like the number (big-endian).
std::string KeyString(double position) {
  const uint64_t v = static_cast<uint64_t>(position * 1e6);
  std::string key(8, '\0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>(v >> (56 - 8 * i));
  return key;
}

double Overlap(double lo1, double hi1, double lo2, double hi2) {
  return std::max(0.0, std::min(hi1, hi2) - std::max(lo1, lo2));
}

LevelSizing SizingOf(const SimOptions& sim) {
  LevelSizing sizing;
  sizing.dynamic = sim.dynamic;
  sizing.base_level_entries = sim.base_level_keys;
  sizing.multiplier = sim.size_ratio;
  sizing.num_levels = sim.num_levels;
  return sizing;
}

}  // namespace

LsmSimulator::LsmSimulator(const SimOptions& sim, const LivePlanOptions& plan)
    : sim_(sim),
      plan_options_(plan),
      planner_([plan, sizing = SizingOf(sim)](
                   const std::vector<LiveLevel>& levels, LivePlan* out) {
        LivePlanOptions options = plan;
        options.sizing = sizing;
        return PlanLiveTree(levels, options, out);
      }),
      drift_(sim.refresh_drift),
      rng_(sim.seed) {}

int LsmSimulator::MillibitsFor(int level) const {
  if (!have_plan_) {
    return BudgetMillibits(plan_options_.bits_per_key,
                           ModelForLevel(plan_options_.filter, level));
  }
  return LiveMillibitsForLevel(plan_, level, plan_options_);
}

void LsmSimulator::Publish() {
  std::vector<LiveFile> files;
  for (const File& f : files_) {
    LiveFile file;
    file.number = f.number;
    file.level = f.level;
    file.entries = f.keys;
    file.bytes = f.keys;
    file.smallest = KeyString(f.lo);
    file.largest = KeyString(f.hi);
    file.flushed = f.flushed;
    file.filter_known = true;
    if (f.millibits > 0) {
      file.filter_bits = f.keys * f.millibits / 1000.0;
      file.filter_entries = f.keys;
    }
    files.push_back(file);
  }
  std::vector<LiveJob> jobs;
  for (const Job& j : jobs_) {
    LiveJob job;
    job.flush = j.flush;
    job.output_level = j.output_level;
    job.input_files = j.inputs;
    job.flush_entries = j.flush ? sim_.memtable_keys : 0;
    jobs.push_back(job);
  }
  const std::vector<LiveLevel> shape = ProjectLiveShape(files, jobs);
  have_plan_ = planner_(shape, &plan_);
  drift_.Published(shape, plan_options_.last_level_filter);
}

void LsmSimulator::Began(const std::vector<std::pair<int, double>>& moved) {
  for (const auto& [level, keys] : moved) drift_.Move(level, keys);
  if (sim_.refresh_drift <= 0 || drift_.Stale()) Publish();
}

int LsmSimulator::L0Files() const {
  int n = 0;
  for (const File& f : files_) n += f.level == 0;
  return n;
}

// Target keys per level (infinite where nothing may compact out), as
// RocksDB sets them (util/level_sizing.h). A backed-up L0 does not raise the
// base level's target (RocksDB 6.x did): it scores higher instead, see
// PickCompaction.
std::vector<double> LsmSimulator::LevelTargets() const {
  std::vector<double> size(sim_.num_levels, 0);
  for (const File& f : files_) size[f.level] += f.keys;
  return monkey::LevelTargets(size, SizingOf(sim_));
}

bool LsmSimulator::PickCompaction(Job* job) const {
  const int n = sim_.num_levels;
  const std::vector<double> target = LevelTargets();
  const int base = BaseLevel(target);
  // Scores of what is not already being compacted, after RocksDB's
  // ComputeCompactionScore (7.8.3 to 11.x). L0 scores its files over the
  // trigger and, without dynamic sizing, its keys over the base level's;
  // with it, L0 past the base level's target scores its keys over the
  // base level's (or that target), and a level past its target scores its
  // keys over its target plus the keys on their way down into it (L0's and
  // every level's above past its target), which holds a level back while
  // a backlog pours into it. A score past 1 counts 10x under dynamic
  // sizing.
  constexpr double kScoreScale = 10;
  std::vector<double> score(n, 0), idle(n, 0), total(n, 0);
  bool l0_busy = false;
  int l0_idle = 0;
  for (const File& f : files_) {
    total[f.level] += f.keys;
    if (f.busy) {
      l0_busy |= f.level == 0;
      continue;
    }
    idle[f.level] += f.keys;
    l0_idle += f.level == 0;
  }
  if (!l0_busy) {
    score[0] = static_cast<double>(l0_idle) / sim_.l0_trigger;
    if (!sim_.dynamic) {
      score[0] = std::max(score[0], idle[0] / sim_.base_level_keys);
    } else {
      if (idle[0] >= sim_.base_level_keys) score[0] = std::max(score[0], 1.01);
      if (target[base] < kInfinity && idle[0] > target[base]) {
        score[0] =
            std::max(score[0], idle[0] / std::max(total[base], target[base]));
      }
      if (score[0] > 1) score[0] *= kScoreScale;
    }
  }
  double downcompact = total[0];
  for (int l = 1; l < n - 1; ++l) {
    if (!(target[l] < kInfinity)) continue;
    if (!sim_.dynamic || idle[l] < target[l]) {
      score[l] = idle[l] / target[l];
    } else {
      score[l] = idle[l] / (target[l] + downcompact) * kScoreScale;
    }
    if (total[l] > target[l]) downcompact += total[l] - target[l];
  }
  std::vector<int> order(n - 1);
  for (int l = 0; l < n - 1; ++l) order[l] = l;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return score[a] > score[b]; });
  for (int from : order) {
    if (score[from] < 1) break;
    const int to = from == 0 ? base : from + 1;
    std::vector<const File*> picked;
    if (from == 0) {
      for (const File& f : files_) {
        if (f.level == 0) picked.push_back(&f);
      }
    } else {
      // kMinOverlappingRatio: the file that drags the fewest keys below.
      double best = kInfinity;
      const File* choice = nullptr;
      for (const File& f : files_) {
        if (f.level != from || f.busy) continue;
        double below = 0;
        bool blocked = false;
        for (const File& g : files_) {
          if (g.level == to && Overlap(f.lo, f.hi, g.lo, g.hi) > 0) {
            below += g.keys;
            blocked |= g.busy;
          }
        }
        if (!blocked && below / f.keys < best) {
          best = below / f.keys;
          choice = &f;
        }
      }
      if (choice == nullptr) continue;
      picked.push_back(choice);
    }
    double lo = kInfinity, hi = -kInfinity;
    for (const File* f : picked) {
      lo = std::min(lo, f->lo);
      hi = std::max(hi, f->hi);
    }
    bool blocked = false, overlap = false;
    std::vector<const File*> below;
    for (const File& g : files_) {
      if (g.level == to && Overlap(lo, hi, g.lo, g.hi) > 0) {
        below.push_back(&g);
        blocked |= g.busy;
        overlap = true;
      }
    }
    if (blocked) continue;
    // Inputs from one level that overlap nothing below move down whole,
    // as long as they do not overlap each other.
    bool disjoint = true;
    for (size_t i = 0; i < picked.size() && disjoint; ++i) {
      for (size_t j = i + 1; j < picked.size(); ++j) {
        if (Overlap(picked[i]->lo, picked[i]->hi, picked[j]->lo,
                    picked[j]->hi) > 0) {
          disjoint = false;
          break;
        }
      }
    }
    *job = Job();
    job->output_level = to;
    job->trivial_move = !overlap && disjoint;
    double keys = 0;
    for (const File* f : picked) {
      job->inputs.push_back(f->number);
      keys += f->keys;
    }
    for (const File* g : below) {
      job->inputs.push_back(g->number);
      keys += g->keys;
    }
    job->end =
        now_ + (job->trivial_move
                    ? 0
                    : keys / (sim_.compaction_speed * sim_.memtable_keys));
    return true;
  }
  return false;
}

std::vector<LsmSimulator::File> LsmSimulator::Merge(
    const std::vector<const File*>& inputs, int level) {
  // Keys spread evenly inside each input: the merged density is piecewise
  // constant between the inputs' ends. Cut it into files of file_keys.
  std::vector<double> cuts;
  for (const File* f : inputs) {
    cuts.push_back(f->lo);
    cuts.push_back(f->hi);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const int millibits = MillibitsFor(level);
  std::vector<File> out;
  File current;
  current.level = level;
  current.built_at = level;
  current.millibits = millibits;
  current.lo = cuts.empty() ? 0 : cuts.front();
  for (size_t s = 0; s + 1 < cuts.size(); ++s) {
    double a = cuts[s];
    const double b = cuts[s + 1];
    double density = 0;
    for (const File* f : inputs) {
      if (f->lo <= a && b <= f->hi && f->hi > f->lo) {
        density += f->keys / (f->hi - f->lo);
      }
    }
    if (density <= 0) {
      continue;
    }
    while (a < b) {
      const double room = sim_.file_keys - current.keys;
      const double here = (b - a) * density;
      if (here < room) {
        current.keys += here;
        current.hi = b;
        a = b;
      } else {
        const double end = a + room / density;
        current.keys += room;
        current.hi = end;
        current.number = next_number_++;
        out.push_back(current);
        current = File();
        current.level = level;
        current.built_at = level;
        current.millibits = millibits;
        current.lo = end;
        a = end;
      }
    }
  }
  if (current.keys > 1e-9) {
    current.number = next_number_++;
    out.push_back(current);
  }
  return out;
}

void LsmSimulator::BeginJob(Job job) {
  std::map<uint64_t, File*> by_number;
  for (File& f : files_) by_number[f.number] = &f;
  std::vector<const File*> inputs;
  std::vector<std::pair<int, double>> moved;
  for (uint64_t number : job.inputs) {
    File* input = by_number[number];
    input->busy = true;
    inputs.push_back(input);
    moved.push_back({input->level, input->keys});
    if (input->level != job.output_level) {
      moved.push_back({job.output_level, input->keys});
    }
  }
  jobs_.push_back(job);
  Began(moved);  // OnCompactionBegin: plan for the tree the job makes
  if (!job.trivial_move) {
    jobs_.back().outputs = Merge(inputs, job.output_level);
  }
}

void LsmSimulator::FinishJob(const Job& job) {
  std::vector<File> kept;
  for (File& f : files_) {
    const bool input = std::find(job.inputs.begin(), job.inputs.end(),
                                 f.number) != job.inputs.end();
    if (input && job.trivial_move) {
      f.level = job.output_level;
      f.busy = false;
    }
    if (!input || job.trivial_move) kept.push_back(f);
  }
  files_ = std::move(kept);
  for (const File& f : job.outputs) files_.push_back(f);
}

SimSnapshot LsmSimulator::Measure(bool settled) const {
  SimSnapshot s;
  s.keys_written = written_;
  s.settled = settled;
  s.shape.assign(sim_.num_levels, {0, 0, true});
  std::vector<int> files(sim_.num_levels, 0);
  std::vector<double> bits(sim_.num_levels, 0);
  for (const File& f : files_) {
    const double coverage =
        Overlap(f.lo, f.hi, 0, range_) / std::max(range_, 1e-300);
    s.shape[f.level].entries += f.keys;
    s.shape[f.level].runs += coverage;
    ++files[f.level];
    bits[f.level] += f.keys * f.millibits / 1000.0;
  }
  for (int l = 1; l < sim_.num_levels; ++l) {
    s.shape[l].runs = std::min(s.shape[l].runs, 1.0);
  }
  // The budget and Sigma FPR cover the levels that may carry filters.
  const std::vector<LevelShape> live =
      LiveShape(s.shape, plan_options_.last_level_filter);
  for (const File& f : files_) {
    if (static_cast<size_t>(f.level) >= live.size() ||
        !live[f.level].filtered) {
      continue;
    }
    const double coverage =
        Overlap(f.lo, f.hi, 0, range_) / std::max(range_, 1e-300);
    s.sum_fpr += coverage * ModelForLevel(plan_options_.filter, f.built_at)
                                .FalsePositiveRate(f.millibits / 1000.0);
  }
  double filtered_bits = 0, filtered_keys = 0;
  s.level_bits.assign(sim_.num_levels, 0);
  for (int l = 0; l < sim_.num_levels; ++l) {
    if (files[l] == 0) continue;
    s.levels += (s.levels.empty() ? "L" : " L") + std::to_string(l);
    if (l == 0) s.levels += "x" + std::to_string(files[l]);
    s.level_bits[l] = bits[l] / s.shape[l].entries;
    if (static_cast<size_t>(l) < live.size() && live[l].filtered) {
      filtered_bits += bits[l];
      filtered_keys += s.shape[l].entries;
    }
  }
  s.bits_per_key = filtered_keys > 0 ? filtered_bits / filtered_keys : 0;
  s.l0_share = filtered_keys > 0 && !live.empty() && live[0].filtered
                   ? s.shape[0].entries / filtered_keys
                   : 0;
  if (!live.empty()) {
    const Plan optimum =
        PlanBitsPerKey(live, s.bits_per_key,
                       ModelsForLevels(plan_options_.filter, live.size()));
    s.optimum = optimum.sum_fpr;
    for (const LevelPlan& level : optimum.levels) {
      s.optimum_bits.push_back(level.bits_per_key);
    }
  }
  return s;
}

std::vector<SimSnapshot> LsmSimulator::Run(
    int memtables, const std::vector<int>& snapshot_at) {
  total_keys_ = memtables * sim_.memtable_keys;
  std::vector<SimSnapshot> out;
  size_t next_snapshot = 0;
  // Runs every job that ends by `until`, starting new ones as threads free.
  auto run_until = [&](double until, bool start_new = true) {
    for (;;) {
      int running = 0;
      for (const Job& j : jobs_) running += !j.flush;
      Job job;
      if (start_new && running < sim_.compaction_threads &&
          PickCompaction(&job)) {
        BeginJob(job);
        continue;
      }
      auto next = std::min_element(
          jobs_.begin(), jobs_.end(),
          [](const Job& a, const Job& b) { return a.end < b.end; });
      if (next == jobs_.end() || next->end > until) return;
      now_ = std::max(now_, next->end);
      const Job done = *next;
      jobs_.erase(next);
      FinishJob(done);
      // OnCompactionCompleted
      if (sim_.refresh_drift <= 0) Publish();
    }
  };
  for (int m = 0; m < memtables; ++m) {
    run_until(now_ + 1);
    now_ += 1;
    // A backed-up L0 stops writes until compactions drain it.
    while (L0Files() >= sim_.l0_stop && !jobs_.empty()) {
      double end = kInfinity;
      for (const Job& j : jobs_) end = std::min(end, j.end);
      run_until(end);
    }
    // Flush: the memtable's keys, all over the key space or the next
    // stretch of it.
    File file;
    file.level = 0;
    file.flushed = true;
    file.keys = sim_.memtable_keys;
    if (sim_.sequential) {
      file.lo = written_;
      file.hi = written_ + sim_.memtable_keys;
    } else {
      file.lo = 0;
      file.hi = total_keys_;
    }
    written_ += sim_.memtable_keys;
    range_ = sim_.sequential ? written_ : total_keys_;
    Job flush;
    flush.flush = true;
    jobs_.push_back(flush);
    Began({{0, sim_.memtable_keys}});  // OnFlushBegin
    file.millibits = MillibitsFor(0);
    file.number = next_number_++;
    jobs_.pop_back();
    files_.push_back(file);
    if (sim_.refresh_drift <= 0) Publish();  // OnFlushCompleted
    while (next_snapshot < snapshot_at.size() &&
           snapshot_at[next_snapshot] <= m + 1) {
      if (snapshot_at[next_snapshot] == m + 1) {
        // Like DB::PauseBackgroundWork: the jobs RocksDB has scheduled by
        // now run to the end, and no new one starts.
        run_until(now_);
        run_until(kInfinity, /*start_new=*/sim_.settle_snapshots);
        out.push_back(Measure(sim_.settle_snapshots));
      }
      ++next_snapshot;
    }
  }
  run_until(kInfinity);
  out.push_back(Measure(true));
  return out;
}

}  // namespace monkey::test
