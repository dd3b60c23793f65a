#include "suites.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bench {
namespace {
std::vector<SuiteInfo>& registry() {
  static std::vector<SuiteInfo> suites;  // function-local: safe during static initialisation
  return suites;
}
bool write_one(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    std::fprintf(stderr, "tilesort-bench: could not write %s\n", path.c_str());
    return false;
  }
  std::fprintf(stderr, "tilesort-bench: wrote %s\n", path.c_str());
  return true;
}
}  // namespace

const std::vector<SuiteInfo>& all_suites() { return registry(); }

SuiteRegistrar::SuiteRegistrar(const char* name, const char* help, SuiteFunction run, const char* options) {
  registry().push_back({name, help, run, options});
}

bool write_reports(const std::string& prefix, const std::vector<std::pair<std::string, std::string>>& files) {
  const std::filesystem::path out(prefix);
  if (out.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(out.parent_path(), ec);
  }
  bool ok = true;
  for (const auto& [suffix, text] : files) ok &= write_one(prefix + suffix, text);
  return ok;
}

bool write_suite_reports(const std::string& prefix, const std::string& markdown, const std::string& json) {
  return write_reports(prefix, {{".md", markdown}, {".json", json}});
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

}  // namespace bench
