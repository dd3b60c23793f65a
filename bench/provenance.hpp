// The lines every benchmark report starts with.
#pragma once

#include <string>

namespace bench {

namespace detail {
/// The commit, date and device, each written as `prefix` + "name: value" + `suffix`.
inline std::string provenance(const std::string& commit, const std::string& date, const std::string& device,
                              const std::string& prefix, const std::string& suffix) {
  return prefix + "commit: " + commit + suffix + prefix + "date: " + date + suffix + prefix + "device: " + device +
         suffix;
}
}  // namespace detail

/// As lines, each ending in a backslash (a Markdown hard line break, so that
/// they stay one per line when rendered) and a newline.
inline std::string provenance_lines(const std::string& commit, const std::string& date, const std::string& device) {
  return detail::provenance(commit, date, device, "", "\\\n");
}

/// As the first items of a Markdown list ("- commit: ..."), for the reports
/// whose header is a list.
inline std::string provenance_items(const std::string& commit, const std::string& date, const std::string& device) {
  return detail::provenance(commit, date, device, "- ", "\n");
}

}  // namespace bench
