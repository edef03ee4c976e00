// The --batch files of `rndnn bench` (cli_bench_batch.hpp): lines, their
// words and problems, and the two passes over a file.
#include "cli_bench_batch.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>

#include <sys/stat.h>

namespace rndnn_cli {

namespace {

using std::string;
using words_t = std::vector<string>;

} // namespace

words_t split_words(const string &line) {
    words_t words;
    const char *space = " \t\r";
    size_t start = line.find_first_not_of(space);
    while (start != string::npos) {
        const size_t end = line.find_first_of(space, start);
        words.push_back(line.substr(start, end - start));
        start = line.find_first_not_of(space, end);
    }
    return words;
}

namespace {

// Reads the next line of @p is (without its '\n') into @p line.
// @returns false at the end of the stream.
// @throws usage_error (@p where first) for a line longer than
//     max_batch_line bytes, before reading the rest of it.
bool read_line(std::istream &is, string &line, const string &where) {
    line.clear();
    char c;
    bool any = false;
    while (is.get(c)) {
        any = true;
        if (c == '\n') return true;
        if (line.size() == max_batch_line)
            throw usage_error(where + "the line is longer than "
                    + std::to_string(max_batch_line) + " bytes");
        line.push_back(c);
    }
    return any;
}

} // namespace

void for_each_batch_problem(std::istream &is, const string &name,
        const po::options_description &desc,
        const std::function<void(const problem_t &)> &each) {
    int lineno = 0;
    bool any = false;
    string line;
    while (read_line(is, line, name + ":" + std::to_string(lineno + 1) + ": ")) {
        ++lineno;
        const string where = name + ":" + std::to_string(lineno) + ": ";
        // A NUL would end the message that quotes the line.
        const size_t nul = line.find('\0');
        if (nul != string::npos)
            throw usage_error(where + "the line holds a NUL byte (at byte "
                    + std::to_string(nul + 1) + ")");
        const size_t first = line.find_first_not_of(" \t\r");
        if (first == string::npos || line[first] == '#') continue;
        const string text = line.substr(
                first, line.find_last_not_of(" \t\r") + 1 - first);
        problem_t p;
        try {
            p = parse_problem(split_words(text), text, desc);
        } catch (const usage_error &e) {
            throw usage_error(where + e.what());
        } catch (const po::error &e) {
            throw usage_error(where + e.what());
        } catch (const rndnn::error &e) {
            throw rndnn::error(e.status(), where + e.what());
        }
        any = true;
        each(p);
    }
    if (is.bad())
        throw io_error("cannot read --batch '" + name
                + "': " + std::strerror(errno));
    if (!any) throw usage_error("--batch '" + name + "' holds no problem");
}

void run_batch_file(const string &path, const po::options_description &desc,
        const std::function<void(int width)> &header,
        const std::function<void(const problem_t &, int width)> &run) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw io_error("cannot read --batch '" + path + "': it is a directory");
    std::ifstream is(path);
    if (!is)
        throw io_error("cannot read --batch '" + path
                + "': " + std::strerror(errno));
    const bool rewinds = is.tellg() != std::streampos(-1);
    size_t width = 12;
    std::vector<string> texts;
    for_each_batch_problem(is, path, desc, [&](const problem_t &p) {
        width = std::max(width, p.impl.size());
        if (!rewinds) texts.push_back(p.text);
    });
    header(static_cast<int>(width));
    if (!rewinds) {
        for (const string &text : texts)
            run(parse_problem(split_words(text), text, desc),
                    static_cast<int>(width));
        return;
    }
    is.clear();
    is.seekg(0);
    for_each_batch_problem(is, path, desc, [&](const problem_t &p) {
        run(p, static_cast<int>(width));
    });
}

} // namespace rndnn_cli
