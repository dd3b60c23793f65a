#include "report.hpp"

#include "provenance.hpp"
#include "targets.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

namespace bench {
namespace {

using Group = std::pair<std::string, std::string>;  // (workload, variant)

struct Baselines {
  std::optional<double> copy_ms;
  std::optional<double> best_cub_ms;
  std::string best_cub_method;
};

std::map<Group, Baselines> baselines(const std::vector<Row>& rows) {
  std::map<Group, Baselines> result;
  for (const Row& r : rows) {
    if (r.status != RowStatus::ok || !r.verified) continue;
    Baselines& b = result[{r.workload, r.variant}];
    const double ms = r.ms->median;
    if (r.is_copy) b.copy_ms = ms;
    if (r.is_cub && (!b.best_cub_ms || ms < *b.best_cub_ms)) {
      b.best_cub_ms = ms;
      b.best_cub_method = r.method;
    }
  }
  return result;
}

std::string format(const char* fmt, double v) { return format_number(fmt, v); }
std::string format_ms(const std::optional<double>& v) { return v ? format("%.3f", *v) : "—"; }
std::string format_ratio(const std::optional<double>& v) { return v ? format("%.2f", *v) : "—"; }

std::string cell(const std::string& text) { return markdown_cell(text); }

std::string status_cell(const Row& r) {
  switch (r.status) {
    case RowStatus::ok: return "ok";
    case RowStatus::failed: return "**FAILED**: " + cell(r.note);
    case RowStatus::skipped: return "skipped: " + cell(r.note);
    case RowStatus::pruned: return cell(r.note);
  }
  return "?";
}

std::string json_string_impl(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}


template <class T>
std::string json_count(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "null";
}

const char* bool_json(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string format_number(const char* printf_format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

std::string json_string(const std::string& s) { return json_string_impl(s); }

std::string json_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "null";
  return format_number("%.6g", *v);
}

std::string with_commas(std::uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

const char* to_string(RowStatus status) {
  switch (status) {
    case RowStatus::ok: return "ok";
    case RowStatus::failed: return "FAILED";
    case RowStatus::skipped: return "skipped";
    case RowStatus::pruned: return "pruned";
  }
  return "?";
}

std::string render_header(const RunInfo& info) {
  std::ostringstream md;
  md << provenance_lines(info.commit, info.date, info.device);
  auto count = [](const std::optional<long>& v) { return v ? std::to_string(*v) : std::string("?"); };
  if (info.tests_passed || info.tests_failed || info.tests_skipped)
    md << "tests: " << count(info.tests_passed) << " passed, " << count(info.tests_failed) << " failed, "
       << count(info.tests_skipped) << " skipped\\\n";
  else
    md << "tests: not recorded (--tests-passed / --tests-failed / --tests-skipped)\\\n";
  md << "timing: median of " << info.reps << " CUDA-event timings after " << info.warmup
     << " warm-ups; unsorted input restored before every run, outside the timed region\n\n";
  return md.str();
}

void compute_derived(std::vector<Row>& rows) {
  const auto base = baselines(rows);
  for (Row& r : rows) {
    r.x_copy.reset();
    r.speedup_vs_best_cub.reset();
    if (r.status != RowStatus::ok) continue;
    const auto it = base.find({r.workload, r.variant});
    if (it == base.end()) continue;
    const double ms = r.ms->median;
    if (it->second.copy_ms && *it->second.copy_ms > 0) r.x_copy = ms / *it->second.copy_ms;
    if (it->second.best_cub_ms && ms > 0) r.speedup_vs_best_cub = *it->second.best_cub_ms / ms;
  }
}

std::string render_markdown(const RunInfo& info, const std::vector<WorkloadInfo>& workloads,
                            const std::vector<Row>& rows) {
  std::ostringstream md;
  md << render_header(info);
  md << render_targets_markdown(evaluate_targets(rows));

  const auto base = baselines(rows);

  // Summary: the headline variant, one row per workload.
  md << "## Summary: " << info.headline_variant << "\n\n";
  md << "| workload | segments | copy ms | tilesort ms | tilesort x copy | best CUB | best CUB ms | best CUB x copy "
        "| speedup vs best CUB |\n";
  md << "|---|---:|---:|---:|---:|---|---:|---:|---:|\n";
  for (const WorkloadInfo& w : workloads) {
    const Row* tilesort = nullptr;
    for (const Row& r : rows)
      if (r.workload == w.name && r.variant == info.headline_variant && r.method == "tilesort") tilesort = &r;
    const auto it = base.find({w.name, info.headline_variant});
    if (it == base.end() && tilesort == nullptr) continue;  // variant not run for this workload
    const Baselines b = it != base.end() ? it->second : Baselines{};
    std::string tilesort_ms = "—", tilesort_x = "—", speedup = "—";
    if (tilesort != nullptr && tilesort->status == RowStatus::ok) {
      tilesort_ms = format_ms(tilesort->ms->median);
      tilesort_x = format_ratio(tilesort->x_copy);
      speedup = tilesort->speedup_vs_best_cub ? format("%.2fx", *tilesort->speedup_vs_best_cub) : "—";
    } else if (tilesort != nullptr) {
      tilesort_ms = tilesort->status == RowStatus::failed ? "**FAILED**" : "skipped";
    }
    std::optional<double> best_x;
    if (b.best_cub_ms && b.copy_ms) best_x = *b.best_cub_ms / *b.copy_ms;
    md << "| " << w.name << " | " << with_commas(w.segments) << " | " << format_ms(b.copy_ms) << " | "
       << tilesort_ms << " | " << tilesort_x << " | " << (b.best_cub_ms ? b.best_cub_method : "—") << " | "
       << format_ms(b.best_cub_ms) << " | " << format_ratio(best_x) << " | " << speedup << " |\n";
  }

  md << "\n## All results\n\n";
  md << "x copy = ms / copy ms of the same workload and variant; vs best CUB = best CUB ms / ms "
        "(above 1: faster than every CUB method).\n\n";
  md << "| workload | variant | method | segments | items | ms | x copy | vs best CUB | status |\n";
  md << "|---|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const Row& r : rows) {
    md << "| " << r.workload << " | " << r.variant << " | " << r.method << " | " << with_commas(r.segments) << " | "
       << with_commas(r.items) << " | " << (r.ms ? format_ms(r.ms->median) : "—") << " | " << format_ratio(r.x_copy)
       << " | " << format_ratio(r.speedup_vs_best_cub) << " | " << status_cell(r) << " |\n";
  }

  // Rows whose calls split into two times: the median above shows one.
  std::vector<std::pair<const Row*, std::size_t>> two_mode;  // the row, its slow calls
  for (const Row& r : rows) {
    if (r.status != RowStatus::ok || !r.ms) continue;
    const std::size_t slow = slow_mode_calls(*r.ms);
    if (is_slow_mode(slow, r.ms->runs.size())) two_mode.emplace_back(&r, slow);
  }
  if (!two_mode.empty()) {
    md << "\n## Rows with a slow mode\n\n";
    md << "At least a fifth of the calls (and two) over 1.1x the median of the faster half; every call is in the "
          "JSON's ms_runs.\n\n";
    md << "| workload | variant | method | calls | slow calls | min ms | median ms | max ms |\n";
    md << "|---|---|---|---:|---:|---:|---:|---:|\n";
    for (const auto& [r, slow] : two_mode)
      md << "| " << r->workload << " | " << r->variant << " | " << r->method << " | " << r->ms->runs.size() << " | "
         << slow << " | " << format_ms(r->ms->min) << " | " << format_ms(r->ms->median) << " | "
         << format_ms(r->ms->max) << " |\n";
  }

  md << "\n## Workloads\n\n";
  for (const WorkloadInfo& w : workloads) {
    md << "- **" << w.name << "**: " << with_commas(w.items) << " items, " << with_commas(w.segments)
       << " segments, longest " << with_commas(w.longest_segment);
    if (!w.note.empty()) md << "; " << w.note;
    md << "\n";
  }

  md << "\n## Methods: what each timed region contains\n\n";
  for (const auto& [method, timed] : info.method_notes) md << "- **" << method << "**: " << timed << "\n";

  if (!info.notes.empty()) {
    md << "\n## Notes\n\n";
    for (const std::string& note : info.notes) md << "- " << note << "\n";
  }
  md << "\ncommand: `" << info.command_line << "`\n";
  return md.str();
}

std::string render_json(const RunInfo& info, const std::vector<WorkloadInfo>& workloads,
                        const std::vector<Row>& rows, const std::string& extra_members) {
  std::ostringstream js;
  js << "{\n";
  js << "  \"commit\": " << json_string(info.commit) << ",\n";
  js << "  \"date\": " << json_string(info.date) << ",\n";
  js << "  \"device\": " << json_string(info.device) << ",\n";
  js << "  \"device_details\": {";
  for (std::size_t i = 0; i < info.device_details.size(); ++i)
    js << (i ? ", " : "") << json_string(info.device_details[i].first) << ": "
       << json_string(info.device_details[i].second);
  js << "},\n";
  js << "  \"tests\": {\"passed\": " << json_count(info.tests_passed) << ", \"failed\": "
     << json_count(info.tests_failed) << ", \"skipped\": " << json_count(info.tests_skipped) << "},\n";
  js << "  \"timing\": {\"statistic\": \"median\", \"reps\": " << info.reps << ", \"warmup\": " << info.warmup
     << "},\n";
  js << "  \"command\": " << json_string(info.command_line) << ",\n";
  js << "  \"workloads\": [\n";
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const WorkloadInfo& w = workloads[i];
    js << "    {\"name\": " << json_string(w.name) << ", \"items\": " << w.items << ", \"segments\": " << w.segments
       << ", \"longest_segment\": " << w.longest_segment << ", \"note\": " << json_string(w.note) << "}"
       << (i + 1 < workloads.size() ? "," : "") << "\n";
  }
  js << "  ],\n";
  js << "  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::optional<double> ms, ms_min, ms_max;
    std::string ms_runs = "[]";
    if (r.ms) {
      ms = r.ms->median;
      ms_min = r.ms->min;
      ms_max = r.ms->max;
      ms_runs = "[";
      for (std::size_t k = 0; k < r.ms->runs.size(); ++k)
        ms_runs += (k ? ", " : "") + json_number(double(r.ms->runs[k]));
      ms_runs += "]";
    }
    js << "    {\"workload\": " << json_string(r.workload) << ", \"variant\": " << json_string(r.variant)
       << ", \"method\": " << json_string(r.method) << ", \"key\": " << json_string(r.key)
       << ", \"value\": " << json_string(r.value) << ", \"ms\": " << json_number(ms)
       << ", \"x_copy\": " << json_number(r.x_copy)
       << ", \"speedup_vs_best_cub\": " << json_number(r.speedup_vs_best_cub) << ", \"items\": " << r.items
       << ", \"segments\": " << r.segments << ", \"verified\": " << bool_json(r.verified)
       << ", \"status\": " << json_string(to_string(r.status)) << ", \"ms_min\": " << json_number(ms_min)
       << ", \"ms_max\": " << json_number(ms_max) << ", \"ms_runs\": " << ms_runs
       << ", \"note\": " << json_string(r.note) << "}"
       << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  js << "  ],\n";
  js << "  \"targets\": " << render_targets_json(evaluate_targets(rows));
  if (!extra_members.empty()) js << ",\n  " << extra_members;
  js << "\n}\n";
  return js.str();
}

std::size_t print_failed_rows(const std::vector<Row>& rows) {
  std::size_t failed = 0;
  for (const Row& r : rows)
    if (r.status == RowStatus::failed) {
      if (failed++ == 0) std::fprintf(stderr, "tilesort-bench: FAILED rows:\n");
      std::fprintf(stderr, "  %s %s %s: %s\n", r.workload.c_str(), r.variant.c_str(), r.method.c_str(),
                   r.note.c_str());
    }
  return failed;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace bench
