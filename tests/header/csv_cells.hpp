#pragma once
// The comma-separated cells of one line of a recorded search (tests/data/*.csv): the header
// tests that replay searches read them alike. No quoting: the files hold numbers and names.
#include <sstream>
#include <string>
#include <vector>

inline std::vector<std::string> csv_cells(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    for (std::string cell; std::getline(s, cell, ',');) out.push_back(cell);
    return out;
}
