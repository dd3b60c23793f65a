// The lines every benchmark report starts with.
#pragma once

#include <string>

namespace bench {

/// "commit: ", "date: " and "device: " lines, each ending in a backslash (a
/// Markdown hard line break, so that they stay one per line when rendered)
/// and a newline.
inline std::string provenance_lines(const std::string& commit, const std::string& date, const std::string& device) {
  return "commit: " + commit + "\\\n" + "date: " + date + "\\\n" + "device: " + device + "\\\n";
}

/// The same three as the first items of a Markdown list ("- commit: ..."),
/// for the reports whose header is a list.
inline std::string provenance_items(const std::string& commit, const std::string& date, const std::string& device) {
  return "- commit: " + commit + "\n- date: " + date + "\n- device: " + device + "\n";
}

}  // namespace bench
