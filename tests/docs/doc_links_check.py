#!/usr/bin/env python3
"""Checks the docs the code cites: every docs/<file>.md a source names
exists, every docs/<file>.md#<anchor> names an anchor that file declares
(<a id="anchor"></a>), and no source cites a section by its title, which a
renamed heading breaks without a word.

Usage: doc_links_check.py <source dir>
"""
import os
import re
import sys

# Where the code lives; bench/results holds records, which quote as they were.
SOURCE_DIRS = ["include", "util", "table", "report", "tools", "bench",
               "stress", "build_tools", "tests", "fuzz", "cmake",
               "db_bench_patches", ".ci"]
SOURCE_FILES = ["CMakeLists.txt", "monkey.mk", os.path.join(".ci", "run")]
SKIP_DIRS = {os.path.join("bench", "results")}
SUFFIXES = (".h", ".cc", ".py", ".sh", ".txt", ".cmake", ".mk", ".patch")

CITATION = re.compile(r"docs/([\w./-]+?\.md)(#[\w-]+)?")
# A docs path followed by a quoted title, across comment line breaks.
TITLE = re.compile(r'docs/[\w./-]+?\.md,?\s*"[A-Z]')
COMMENT_BREAK = re.compile(r"\n\s*(//|#)\s*")
ANCHOR = re.compile(r'<a id="([\w-]+)"></a>')


def sources(root):
    for name in SOURCE_FILES:
        path = os.path.join(root, name)
        if os.path.isfile(path):
            yield path
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(dirpath, root)
            dirnames[:] = [d for d in dirnames
                           if os.path.join(rel, d) not in SKIP_DIRS]
            for f in filenames:
                if f.endswith(SUFFIXES):
                    yield os.path.join(dirpath, f)


def main():
    root = os.path.realpath(sys.argv[1])
    anchors = {}
    problems = []
    cited = 0
    for path in sources(root):
        if os.path.realpath(path) == os.path.realpath(__file__):
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        rel = os.path.relpath(path, root)
        joined = COMMENT_BREAK.sub(" ", text)
        for m in TITLE.finditer(joined):
            problems.append(f"{rel}: cites a section by its title "
                            f"({m.group(0)}...); cite docs/<file>.md#<anchor>")
        for m in CITATION.finditer(text):
            doc, anchor = m.group(1), m.group(2)
            cited += 1
            doc_path = os.path.join(root, "docs", doc)
            if not os.path.isfile(doc_path):
                problems.append(f"{rel}: cites docs/{doc}, which does not exist")
                continue
            if anchor is None:
                continue
            if doc not in anchors:
                with open(doc_path) as f:
                    anchors[doc] = set(ANCHOR.findall(f.read()))
            if anchor[1:] not in anchors[doc]:
                problems.append(f"{rel}: cites docs/{doc}{anchor}, an anchor "
                                f"docs/{doc} does not declare")
    for p in problems:
        print(p)
    print(f"doc_links_check: {cited} citations of docs, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
