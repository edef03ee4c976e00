# Docs that run (ctest Docs.*): compiles the C++ blocks and runs the shell blocks of README.md and docs/*.md.
#
# Every fenced block labelled cpp (or c++, cxx) or sh (or bash, shell) must
# be classified by an HTML comment, invisible to readers, on the last
# non-blank line before its opening fence:
#
#   <!-- compile: program -->       a whole program with main(): compiled on
#                                   its own, linked with the library and run
#                                   (exit status 0 expected)
#   <!-- compile: declarations -->  namespace-scope code that includes what
#                                   it uses (no main): it opens its file's
#                                   translation unit, before the prelude
#   <!-- compile: fragment -->      statements: the body of a function in its
#                                   file's translation unit, after the prelude
#   <!-- compile: no (why) -->      not compiled (pseudo-code)
#   <!-- compile: quote FILE -->    an excerpt of FILE (a path from the
#                                   source root, an example program that
#                                   ctest builds and runs): its lines must
#                                   appear in FILE as they are, in one run
#   <!-- run: yes -->               a shell block to run
#   <!-- run: no (why) -->          a shell block not to run (it installs
#                                   packages, runs for minutes, needs a tool
#                                   the machine lacks)
#
# An unclassified block, or an unlabelled block that looks like C++ (it
# holds "rndnn::" or "#include"), fails the test.
#
# cpp mode: one translation unit per markdown file that has declarations or
# fragments: its declarations blocks in order, then tests/docs/prelude.hpp
# (the standard headers, rndnn.hpp, and the objects each file's fragments
# assume, selected by a macro named after the file), then each fragment as
# the body of its own function, then an empty main(). It is compiled at -O0
# and linked with the library (fragments are not run: their objects are
# placeholders). Every program block is its own translation unit, compiled,
# linked and run. #line directives make compiler errors name the markdown
# file and line.
#
# sh mode: the runnable blocks of each markdown file run in order, with
# bash -e -o pipefail, in one new temporary directory per file that holds
# build/tools (a link to the built tools), bench (a link to the batch
# files) and nothing else, with the built tools first on PATH; each block
# must exit with status 0; finding no runnable block at all fails too (a
# broken parser or marker would otherwise pass silently). The blocks read
# the source tree only through those links and write only in the
# temporary directory, which is removed afterwards.
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

CPP = {"cpp", "c++", "cxx", "cc"}
SHELL = {"sh", "bash", "shell"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
MARKER = re.compile(
    r"^\s*<!--\s*(compile|run)\s*:\s*([a-z]+)\b\s*(.*?)\s*-->\s*$")
KINDS = {"compile": {"program", "declarations", "fragment", "quote", "no"},
         "run": {"yes", "no"}}


class Block:
    def __init__(self, path, line, lang, text, marker):
        self.path = path  # relative to the source root
        self.line = line  # 1-based line of the block's first content line
        self.lang = lang
        self.text = text
        self.marker = marker  # (kind, value, argument) or None

    def where(self):
        return "%s:%d" % (self.path, self.line - 1)

    def is_marked(self, kind, value=None):
        """Whether the marker is <!-- kind: value ... --> (any value when
        value is None), whatever its argument."""
        return bool(self.marker) and self.marker[0] == kind \
            and value in (None, self.marker[1])


def parse(root, rel):
    """All fenced blocks of one markdown file."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        marker = None
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            mm = MARKER.match(lines[j])
            if mm:
                marker = (mm.group(1), mm.group(2), mm.group(3))
        body = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(fence[0] * len(fence)) \
                    and not stripped.strip(fence[0]):
                break
            # List items indent their fences: drop that indentation.
            line = lines[i]
            body.append(line[indent:] if line[:indent].isspace() else line)
            i += 1
        start = i - len(body) + 1  # 1-based line of the first body line
        blocks.append(Block(rel, start, info.lower(), "\n".join(body) + "\n",
                            marker))
        i += 1
    return blocks


def markdown_files(root):
    docs = sorted(f for f in os.listdir(os.path.join(root, "docs"))
                  if f.endswith(".md"))
    return ["README.md"] + ["docs/" + f for f in docs]


def classify(blocks, mode):
    """Checks the markers of the blocks that mode handles (cpp: C++ blocks
    and unlabelled ones, sh: shell blocks); returns the list of errors."""
    errors = []
    for b in blocks:
        if b.lang in CPP:
            want = "compile"
        elif b.lang in SHELL:
            want = "run"
        else:
            want = None
        if (want != "run") != (mode == "cpp"):
            continue
        if want is None:
            if b.marker:
                errors.append("%s: a %s marker on a block labelled '%s'"
                              % (b.where(), b.marker[0], b.lang))
            elif not b.lang and ("rndnn::" in b.text
                                 or "#include" in b.text):
                errors.append("%s: an unlabelled block that looks like C++: "
                              "label it cpp and classify it" % b.where())
            continue
        if not b.marker:
            errors.append("%s: unclassified %s block: put <!-- %s: %s --> "
                          "before it" % (b.where(), b.lang, want,
                                         " | ".join(sorted(KINDS[want]))))
        elif b.marker[0] != want or b.marker[1] not in KINDS[want]:
            errors.append("%s: <!-- %s: %s --> does not fit a %s block "
                          "(expected %s: %s)"
                          % (b.where(), b.marker[0], b.marker[1], b.lang,
                             want, " | ".join(sorted(KINDS[want]))))
    return errors


def check_quotes(root, blocks):
    """The errors of the quote blocks: each must be a run of lines of the
    file it names."""
    errors = []
    for b in blocks:
        if not (b.lang in CPP and b.is_marked("compile", "quote")):
            continue
        path = os.path.join(root, b.marker[2])
        if not b.marker[2] or not os.path.isfile(path):
            errors.append("%s: quote of '%s', which is no file"
                          % (b.where(), b.marker[2]))
            continue
        with open(path, encoding="utf-8") as f:
            text = "\n" + f.read()
        if "\n" + b.text not in text:
            errors.append("%s: the block is not an excerpt of %s (its lines "
                          "must appear there as they are, in one run)"
                          % (b.where(), b.marker[2]))
    return errors


def macro_for(rel):
    """README.md -> RNDNN_DOC_README_MD, docs/api.md -> RNDNN_DOC_API_MD."""
    return "RNDNN_DOC_" + re.sub(r"[^A-Za-z0-9]", "_",
                                 os.path.basename(rel)).upper()


def line_directive(b, root):
    return '#line %d "%s"\n' % (b.line, os.path.join(root, b.path))


def translation_units(root, blocks):
    """(name, source, macro, is_program, block for programs) per TU."""
    units = []
    by_file = {}
    for b in blocks:
        if b.lang in CPP and b.is_marked("compile"):
            by_file.setdefault(b.path, []).append(b)
    for rel, bs in by_file.items():
        stem = re.sub(r"[^A-Za-z0-9]", "_", rel)
        decls = [b for b in bs if b.marker[1] == "declarations"]
        frags = [b for b in bs if b.marker[1] == "fragment"]
        if decls or frags:
            src = "// %s: declarations and fragments\n" % rel
            for b in decls:
                src += line_directive(b, root) + b.text
            src += '#line 1 "<generated>"\n#include "prelude.hpp"\n'
            for b in frags:
                src += "void rndnn_doc_fragment_line_%d() {\n" % b.line
                src += line_directive(b, root) + b.text
                src += '#line 1 "<generated>"\n}\n'
            src += "int main() { return 0; }\n"
            units.append((stem, src, macro_for(rel), False, None))
        for b in bs:
            if b.marker[1] == "program":
                src = line_directive(b, root) + b.text
                units.append(("%s_line_%d" % (stem, b.line), src,
                              macro_for(rel), True, b))
    return units


def split_list(value):
    return [v for v in value.split(";") if v] if value else []


def run_cpp(args, blocks):
    here = os.path.dirname(os.path.abspath(__file__))
    units = translation_units(args.root, blocks)
    if not units:
        print("no C++ blocks to compile")
        return 0
    work = tempfile.mkdtemp(prefix="rndnn-docs-cpp-")
    compile_flags = ["-std=c++17", "-O0", "-I" + os.path.join(args.root,
                     "include"), "-I" + here] + split_list(args.cxxflags)
    link = split_list(args.libs) + split_list(args.ldflags)

    def build(unit):
        name, src, macro, is_program, block = unit
        cpp = os.path.join(work, name + ".cpp")
        exe = os.path.join(work, name)
        with open(cpp, "w", encoding="utf-8") as f:
            f.write(src)
        cmd = [args.cxx] + compile_flags + ["-D" + macro + "=1", cpp,
                                            "-o", exe] + link
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        report = "compile and link %s: %s\n" % (
            name, "ok" if p.returncode == 0 else "FAILED")
        if p.returncode != 0:
            report += "  " + " ".join(shlex.quote(c) for c in cmd) + "\n"
            report += p.stdout
            return False, report
        if is_program:
            try:
                r = subprocess.run([exe], cwd=work, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   timeout=args.timeout)
                ok = r.returncode == 0
                report += "run %s (%s): exit status %d\n" % (
                    name, block.where(), r.returncode)
                if not ok:
                    report += r.stdout
            except subprocess.TimeoutExpired:
                ok = False
                report += "run %s: timed out after %d s\n" % (name,
                                                             args.timeout)
            return ok, report
        return True, report

    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(build, units))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept " + work)
    for _, report in results:
        sys.stdout.write(report)
    failed = sum(1 for ok, _ in results if not ok)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


def run_sh(args, blocks):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.abspath(args.tools),
                                   env.get("PATH", "")])
    results = []
    by_file = {}
    for b in blocks:
        if b.lang in SHELL and b.is_marked("run", "yes"):
            by_file.setdefault(b.path, []).append(b)
    if not by_file:
        # The docs have runnable blocks: none found means the parser or
        # the markers broke, not that there is nothing to check.
        print("no shell block marked <!-- run: yes --> in %s"
              % ", ".join(sorted({b.path for b in blocks})))
        return 1
    for rel, bs in by_file.items():
        work = tempfile.mkdtemp(prefix="rndnn-docs-sh-")
        try:
            os.mkdir(os.path.join(work, "build"))
            os.symlink(os.path.abspath(args.tools),
                       os.path.join(work, "build", "tools"))
            os.symlink(os.path.join(os.path.abspath(args.root), "bench"),
                       os.path.join(work, "bench"))
            for b in bs:
                script = "set -eo pipefail\n" + b.text
                try:
                    r = subprocess.run(["bash", "-c", script], cwd=work,
                                       env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True,
                                       timeout=args.timeout)
                    ok = r.returncode == 0
                    status = "exit status %d" % r.returncode
                    out = r.stdout
                except subprocess.TimeoutExpired as e:
                    ok = False
                    status = "timed out after %d s" % args.timeout
                    out = e.stdout or ""
                    if isinstance(out, bytes):
                        out = out.decode(errors="replace")
                print("run %s: %s" % (b.where(), status))
                if not ok:
                    print(b.text + "--- output:\n" + out[-4000:])
                results.append(ok)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("mode", choices=["cpp", "sh", "list"])
    ap.add_argument("--root", required=True, help="the source tree")
    ap.add_argument("--files", default="",
                    help="';'-separated markdown files relative to --root "
                         "(default: README.md and docs/*.md)")
    ap.add_argument("--cxx", help="cpp: the C++ compiler")
    ap.add_argument("--cxxflags", default="",
                    help="cpp: ';'-separated extra compile flags")
    ap.add_argument("--libs", default="",
                    help="cpp: ';'-separated libraries, the library first")
    ap.add_argument("--ldflags", default="",
                    help="cpp: ';'-separated extra link flags")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true",
                    help="cpp: keep the generated sources")
    ap.add_argument("--tools", help="sh: the folder of the built rndnn")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds per program or shell block")
    args = ap.parse_args()

    files = split_list(args.files) or markdown_files(args.root)
    blocks = []
    for rel in files:
        blocks += parse(args.root, rel)
    errors = []
    for mode in (["cpp", "sh"] if args.mode == "list" else [args.mode]):
        errors += classify(blocks, mode)
    if args.mode in ("cpp", "list"):
        errors += check_quotes(args.root, blocks)
    for e in errors:
        print(e)
    if args.mode == "list":
        for b in blocks:
            if b.lang in CPP | SHELL:
                print("%s %s %s" % (b.where(), b.lang,
                                    ":".join(b.marker or ("-",))))
        return 1 if errors else 0
    if errors:
        print("%d unclassified or misclassified blocks" % len(errors))
        return 1
    if args.mode == "cpp":
        if not args.cxx:
            ap.error("cpp needs --cxx")
        return run_cpp(args, blocks)
    if not args.tools:
        ap.error("sh needs --tools")
    return run_sh(args, blocks)


if __name__ == "__main__":
    sys.exit(main())
