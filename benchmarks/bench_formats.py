"""Parse time of each format added by issue 25 against a bare pass of the same bytes through the
tokenizer its parser builds on: ``json.loads`` (JSON); for text :func:`bare_lines` (a UTF-8 decode, a
split into lines and a Python ``for`` over them, in the chunks the parsers read; ``bench_parse.py`` uses
the same for LCOV); for XML expat over the parsers' 1 MiB chunks with a start handler that does
nothing, the Python call per element that any Python expat consumer pays (the same baseline as
``bench_parse.py``; expat with no handler at all is printed below its row). The issue's bound is 2x.

Each report is generated in memory: ``--files`` files of ``--lines`` lines (default 20,000 x 100),
every third line missed and every fifth partial where the format has branches. Times are process CPU
seconds, the best of ``--repeat`` runs. Run by hand, ``nice``d: ``python benchmarks/bench_formats.py``.
"""

from __future__ import annotations

import argparse
import codecs
import json
import time
from typing import Callable, Iterable, Iterator
from xml.parsers import expat

from flask_coverage.parsers import parse_report
from flask_coverage.parsers._input import CHUNK_SIZE


def _lines(lines: int) -> Iterator[tuple[int, int, bool]]:
    # (line, hits, partial) for one file.
    for n in range(1, lines + 1):
        yield n, 0 if n % 3 == 0 else n % 7 + 1, n % 5 == 0


def jacoco(files: int, lines: int) -> bytes:
    parts = ['<?xml version="1.0"?><report name="bench">']
    for f in range(files):
        if f % 100 == 0:
            parts.append(f'{"</package>" if f else ""}<package name="com/acme/p{f // 100}">')
        parts.append(f'<sourcefile name="C{f}.java">')
        for n, hits, partial in _lines(lines):
            mb, cb = (1, 1) if partial and hits else (0, 0)
            parts.append(f'<line nr="{n}" mi="{0 if hits else 2}" ci="{hits}" mb="{mb}" cb="{cb}"/>')
        parts.append('<counter type="LINE" missed="1" covered="1"/></sourcefile>')
    parts.append("</package></report>")
    return "".join(parts).encode()


def clover(files: int, lines: int) -> bytes:
    parts = ['<?xml version="1.0"?><coverage generated="1" clover="4.5.2"><project timestamp="1">']
    for f in range(files):
        parts.append(f'<file name="src/p{f // 100}/c{f}.js" path="/w/src/p{f // 100}/c{f}.js">')
        for n, hits, partial in _lines(lines):
            if partial and hits:
                parts.append(f'<line num="{n}" count="{hits}" type="cond" truecount="{hits}" falsecount="0"/>')
            else:
                parts.append(f'<line num="{n}" count="{hits}" type="stmt"/>')
        parts.append("</file>")
    parts.append("</project></coverage>")
    return "".join(parts).encode()


def sonarqube(files: int, lines: int) -> bytes:
    parts = ['<coverage version="1">']
    for f in range(files):
        parts.append(f'<file path="src/p{f // 100}/c{f}.c">')
        for n, hits, partial in _lines(lines):
            extra = ' branchesToCover="2" coveredBranches="1"' if partial else ""
            parts.append(f'<lineToCover lineNumber="{n}" covered="{"true" if hits else "false"}"{extra}/>')
        parts.append("</file>")
    parts.append("</coverage>")
    return "".join(parts).encode()


def opencover(files: int, lines: int) -> bytes:
    # coverlet's shape: a module per 100 files, a method per 10 lines, one sequence point per line.
    parts = ['<?xml version="1.0" encoding="utf-8"?><CoverageSession><Modules>']
    for module in range(0, files, 100):
        parts.append("<Module><Files>")
        parts.extend(
            f'<File uid="{f}" fullPath="C:\\w\\src\\p{module}\\C{f}.cs" />'
            for f in range(module, min(module + 100, files))
        )
        parts.append("</Files><Classes>")
        for f in range(module, min(module + 100, files)):
            parts.append(f"<Class><FullName>C{f}</FullName><Methods>")
            for n, hits, partial in _lines(lines):
                if n % 10 == 1:
                    parts.append(f'{"</SequencePoints></Method>" if n > 1 else ""}<Method><FileRef uid="{f}" />')
                    parts.append("<SequencePoints>")
                bec, bev = (2, 1) if partial and hits else (0, 0)
                parts.append(
                    f'<SequencePoint vc="{hits}" uspid="{n}" ordinal="{n % 10}" sl="{n}" sc="9" el="{n}" ec="30" '
                    f'bec="{bec}" bev="{bev}" fileid="{f}" />'
                )
            parts.append("</SequencePoints></Method></Methods></Class>")
        parts.append("</Classes></Module>")
    parts.append("</Modules></CoverageSession>")
    return "".join(parts).encode()


def dotcover(files: int, lines: int) -> bytes:
    # dotCover's DetailedXML: the files listed first, an assembly per 100 files, a method per 10 lines.
    parts = ['<?xml version="1.0" encoding="utf-8"?><Root DotCoverVersion="2023.3" ReportType="DetailedXml">']
    parts.append("<FileIndices>")
    parts.extend(f'<File Index="{f}" Name="C:\\w\\src\\p{f // 100}\\C{f}.cs" />' for f in range(files))
    parts.append("</FileIndices>")
    for module in range(0, files, 100):
        parts.append(f'<Assembly Name="A{module}"><Namespace Name="N">')
        for f in range(module, min(module + 100, files)):
            parts.append(f'<Type Name="C{f}">')
            for n, hits, _partial in _lines(lines):
                if n % 10 == 1:
                    parts.append(f'{"</Method>" if n > 1 else ""}<Method Name="M{n}()">')
                covered = "True" if hits else "False"
                parts.append(
                    f'<Statement FileIndex="{f}" Line="{n}" Column="9" EndLine="{n}" EndColumn="30" '
                    f'Covered="{covered}" />'
                )
            parts.append("</Method></Type>")
        parts.append("</Namespace></Assembly>")
    parts.append("</Root>")
    return "".join(parts).encode()


def bullseye(files: int, lines: int) -> bytes:
    # covxml: a folder per 100 files, a function per 10 lines, a probe per line.
    parts = ['<?xml version="1.0"?><BullseyeCoverage name="t.cov" xmlns="https://www.bullseye.com/covxml">']
    for f in range(files):
        if f % 100 == 0:
            parts.append(f'{"</folder>" if f else ""}<folder name="p{f // 100}">')
        parts.append(f'<src name="c{f}.c">')
        for n, hits, partial in _lines(lines):
            if n % 10 == 1:
                parts.append(f'{"</fn>" if n > 1 else ""}<fn name="f{n}()" line="{n}">')
            event = "true" if partial and hits else "full" if hits else "none"
            parts.append(
                f'<probe line="{n}" column="5" kind="{"decision" if partial else "statement"}" event="{event}"/>'
            )
        parts.append("</fn></src>")
    parts.append("</folder></BullseyeCoverage>")
    return "".join(parts).encode()


def vscoverage(files: int, lines: int) -> bytes:
    # CodeCoverage.exe analyze: a module per 100 files, a function per 10 lines, a range per line.
    parts = ['<?xml version="1.0" encoding="utf-8"?><results><modules>']
    for module in range(0, files, 100):
        parts.append(f'<module name="m{module}.dll" block_coverage="50"><functions>')
        for f in range(module, min(module + 100, files)):
            for n, hits, partial in _lines(lines):
                if n % 10 == 1:
                    parts.append(f'{"</ranges></function>" if n > 1 else ""}<function name="F{n}"><ranges>')
                covered = "partial" if partial and hits else "yes" if hits else "no"
                parts.append(
                    f'<range source_id="{f}" covered="{covered}" start_line="{n}" start_column="9" end_line="{n}" '
                    'end_column="30" />'
                )
            parts.append("</ranges></function>")
        parts.append("</functions><source_files>")
        parts.extend(
            f'<source_file id="{f}" path="C:\\w\\src\\C{f}.cs" />' for f in range(module, min(module + 100, files))
        )
        parts.append("</source_files></module>")
    parts.append("</modules></results>")
    return "".join(parts).encode()


def vscoverage_data_set(files: int, lines: int) -> bytes:
    # CoverageDSPriv as a data set's WriteXml indents it: a module per 100 files, a method per 10 lines,
    # a <Lines> row per line, the file names last.
    parts = ['<?xml version="1.0" standalone="yes"?>\n<CoverageDSPriv>\n']
    for module in range(0, files, 100):
        parts.append(f"  <Module>\n    <ModuleName>m{module}.dll</ModuleName>\n    <NamespaceTable>\n      <Class>\n")
        for f in range(module, min(module + 100, files)):
            for n, hits, partial in _lines(lines):
                if n % 10 == 1:
                    parts.append("        </Method>\n" if n > 1 else "")
                    parts.append(f"        <Method>\n          <MethodName>F{n}</MethodName>\n")
                coverage = 1 if partial and hits else 0 if hits else 2
                parts.append(
                    f"          <Lines>\n            <LnStart>{n}</LnStart>\n            <ColStart>9</ColStart>\n"
                    f"            <LnEnd>{n}</LnEnd>\n            <ColEnd>30</ColEnd>\n"
                    f"            <Coverage>{coverage}</Coverage>\n            <SourceFileID>{f}</SourceFileID>\n"
                    f"            <LineID>{n}</LineID>\n          </Lines>\n"
                )
            parts.append("        </Method>\n")
        parts.append("      </Class>\n    </NamespaceTable>\n  </Module>\n")
    parts.extend(
        f"  <SourceFileNames>\n    <SourceFileID>{f}</SourceFileID>\n"
        f"    <SourceFileName>C:\\w\\src\\C{f}.cs</SourceFileName>\n  </SourceFileNames>\n"
        for f in range(files)
    )
    parts.append("</CoverageDSPriv>\n")
    return "".join(parts).encode()


def mono(files: int, lines: int) -> bytes:
    # Mono's coverage profiler: an assembly, a class per file, a method per 10 lines, a statement per line.
    close_method = "\t</method>\n"
    parts = ['<?xml version="1.0"?>\n<coverage version="0.3">\n']
    parts.append('\t<assembly name="a" guid="0" filename="/w/bin/a.dll" method-count="1" full="1" partial="0"/>\n')
    parts.extend(f'\t<class name="C{f}" method-count="10" full="5" partial="0"/>\n' for f in range(files))
    for f in range(files):
        for n, hits, _ in _lines(lines):
            if n % 10 == 1:
                parts.append(close_method if n > 1 else "")
                parts.append(
                    f'\t<method assembly="a" class="C{f}" name="F{n} ()" filename="/w/src/p{f // 100}/C{f}.cs" '
                    f'token="{n}">\n'
                )
            parts.append(f'\t\t<statement offset="{n * 4}" counter="{hits}" line="{n}" column="9"/>\n')
        parts.append(close_method)
    parts.append("</coverage>\n")
    return "".join(parts).encode()


def go(files: int, lines: int) -> bytes:
    parts = ["mode: count\n"]
    for f in range(files):
        for n, hits, _ in _lines(lines):
            parts.append(f"example.com/m/p{f // 100}/f{f}.go:{n}.2,{n}.30 1 {hits}\n")
    return "".join(parts).encode()


def lcov(files: int, lines: int) -> bytes:
    parts = []
    for f in range(files):
        parts.append(f"TN:\nSF:src/p{f // 100}/f{f}.c\n")
        branches = []
        for n, hits, partial in _lines(lines):
            parts.append(f"DA:{n},{hits}\n")
            if partial:
                branches.append(f"BRDA:{n},0,0,{hits or '-'}\nBRDA:{n},0,1,-\n")
        parts.extend(branches)
        parts.append(f"LF:{lines}\nLH:{lines - lines // 3}\nend_of_record\n")
    return "".join(parts).encode()


def gcov(files: int, lines: int) -> bytes:
    parts = []
    for f in range(files):
        parts.append(f"        -:    0:Source:src/p{f // 100}/c{f}.c\n")
        for n, hits, partial in _lines(lines):
            count = str(hits) if hits else "#####"
            if partial and hits:
                parts.append(f"{count:>9}:{n:>5}:    if (x > {n}) {{\nbranch  0 taken 1\nbranch  1 taken 0\n")
            else:
                parts.append(f"{count:>9}:{n:>5}:    x += {n};\n")
    return "".join(parts).encode()


def xcode(files: int, lines: int) -> bytes:
    parts = []
    for f in range(files):
        parts.append(f"/w/Sources/p{f // 100}/c{f}.swift:\n")
        for n, hits, _ in _lines(lines):
            parts.append(f"{n:>5}|{hits:>7}|    x += {n}\n")
        parts.append("\n")
    return "".join(parts).encode()


def xcode_counts_first(files: int, lines: int) -> bytes:
    # llvm-cov before 3.9: count|line|source (read by the Python reader alone).
    parts = []
    for f in range(files):
        parts.append(f"/w/src/p{f // 100}/c{f}.c:\n")
        for n, hits, _ in _lines(lines):
            parts.append(f"{hits:>7}|{n:>5}|    x += {n};\n")
        parts.append("\n")
    return "".join(parts).encode()


def jscover(files: int, lines: int) -> bytes:
    # JSCover's jscoverage.json: lineData, and a condition evaluated one way on each partial line.
    report = {}
    for f in range(files):
        line_data: list[int | None] = [None]
        branch_data = {}
        for n, hits, partial in _lines(lines):
            line_data.append(hits)
            if partial:
                branch_data[str(n)] = [None, {"position": 4, "nodeLength": 5, "evalFalse": 0, "evalTrue": hits}]
        report[f"/src/p{f // 100}/c{f}.js"] = {"lineData": line_data, "functionData": [1], "branchData": branch_data}
    return json.dumps(report).encode()


def istanbul(files: int, lines: int) -> bytes:
    report = {}
    for f in range(files):
        loc = {
            str(n): {"start": {"line": n, "column": 2}, "end": {"line": n, "column": 30}} for n in range(1, lines + 1)
        }
        counts = {str(n): hits for n, hits, _ in _lines(lines)}
        branches = {
            str(n): {"loc": loc[str(n)], "type": "if", "locations": [loc[str(n)], loc[str(n)]], "line": n}
            for n, hits, partial in _lines(lines)
            if partial
        }
        name = f"/w/src/p{f // 100}/c{f}.js"
        report[name] = {"path": name, "statementMap": loc, "s": counts, "fnMap": {}, "f": {}, "branchMap": branches}
        report[name]["b"] = {key: [1, 0] for key in branches}
    return json.dumps(report).encode()


def _counts(lines: int) -> list[int | None]:
    return [None if n % 11 == 0 else hits for n, hits, _ in _lines(lines)]


def simplecov(files: int, lines: int) -> bytes:
    coverage = {f"/w/lib/p{f // 100}/c{f}.rb": {"lines": _counts(lines)} for f in range(files)}
    return json.dumps({"RSpec": {"coverage": coverage, "timestamp": 1}}).encode()


def coveralls(files: int, lines: int) -> bytes:
    source_files = [{"name": f"src/p{f // 100}/c{f}.c", "coverage": _counts(lines)} for f in range(files)]
    return json.dumps({"service_name": "bench", "source_files": source_files}).encode()


def codecov(files: int, lines: int) -> bytes:
    coverage = {
        f"src/p{f // 100}/c{f}.py": {
            str(n): ("1/2" if partial and hits else hits) for n, hits, partial in _lines(lines)
        }
        for f in range(files)
    }
    return json.dumps({"coverage": coverage}).encode()


def gcov_json(files: int, lines: int) -> bytes:
    entries = [
        {
            "file": f"src/p{f // 100}/c{f}.c",
            "lines": [
                {"line_number": n, "count": hits, "branches": [{"count": 1}, {"count": 0}] if partial else []}
                for n, hits, partial in _lines(lines)
            ],
        }
        for f in range(files)
    ]
    return json.dumps({"gcc_version": "12.2.0", "format_version": "1", "files": entries}).encode()


def llvm(files: int, lines: int) -> bytes:
    entries = [
        {
            "branches": [[n, 2, n, 9, hits, 0, 0, 0, 4] for n, hits, partial in _lines(lines) if partial],
            "filename": f"/w/src/p{f // 100}/c{f}.c",
            "segments": [[n, 1, hits, True, True, False] for n, hits, _ in _lines(lines)],
        }
        for f in range(files)
    ]
    return json.dumps({"data": [{"files": entries, "functions": []}], "type": "llvm.coverage.json.export"}).encode()


def scoverage(files: int, lines: int) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?><scoverage statement-count="1" version="1.0"><packages>']
    for f in range(files):
        if f % 100 == 0:
            parts.append(f'{"</classes></package>" if f else ""}<package name="p{f // 100}"><classes>')
        source = f"/w/src/main/scala/p{f // 100}/C{f}.scala"
        parts.append(f'<class name="p.C{f}" filename="p{f // 100}/C{f}.scala"><methods><method name="m"><statements>')
        for n, hits, partial in _lines(lines):
            attrs = f'source="{source}" method="m" start="{n * 40}" end="{n * 40 + 30}" line="{n}"'
            parts.append(f'<statement {attrs} branch="false" invocation-count="{hits}" ignored="false"/>')
            if partial and hits:
                parts.append(f'<statement {attrs} branch="true" invocation-count="0" ignored="false"/>')
        parts.append("</statements></method></methods></class>")
    parts.append("</classes></package></packages></scoverage>")
    return "".join(parts).encode()


def luacov(files: int, lines: int) -> bytes:
    parts = []
    rule = "=" * 78 + "\n"
    for f in range(files):
        parts.append(f"{rule}src/p{f // 100}/m{f}.lua\n{rule}")
        for n, hits, _ in _lines(lines):
            parts.append(f"{hits:>2} x = x + {n}\n" if hits else f"*0 x = x + {n}\n")
        parts.append("\n")
    parts.append(f"{rule}Summary\n{rule}\n")
    return "".join(parts).encode()


def xccov(files: int, lines: int) -> bytes:
    # Xcode's report has functions, not lines: one function per ten lines.
    entries = [
        {
            "coveredLines": 7,
            "lineCoverage": 0.7,
            "path": f"/w/Sources/p{f // 100}/c{f}.swift",
            "functions": [
                {
                    "coveredLines": 7,
                    "lineCoverage": 0.7,
                    "lineNumber": n,
                    "executionCount": hits,
                    "name": f"f{n}()",
                    "executableLines": 10,
                }
                for n, hits, _ in _lines(lines)
                if n % 10 == 1
            ],
            "name": f"c{f}.swift",
            "executableLines": 10,
        }
        for f in range(files)
    ]
    target = {"coveredLines": 7, "lineCoverage": 0.7, "files": entries, "name": "A.app", "executableLines": 10}
    return json.dumps({"coveredLines": 7, "lineCoverage": 0.7, "targets": [target], "executableLines": 10}).encode()


def xccov_archive(files: int, lines: int) -> bytes:
    # Every line of the source, as Xcode writes them: every eleventh not executable, a partial line
    # with a subrange that did not run.
    report = {}
    for f in range(files):
        entries: list[dict[str, object]] = []
        for n, hits, partial in _lines(lines):
            if n % 11 == 0:
                entries.append({"line": n, "isExecutable": False})
                continue
            subranges = [{"column": 9, "length": 12, "executionCount": 0}] if partial and hits else []
            entries.append({"line": n, "isExecutable": True, "executionCount": hits, "subranges": subranges})
        report[f"/w/Sources/p{f // 100}/c{f}.swift"] = entries
    return json.dumps(report).encode()


def _expat(data: bytes, handler: bool = True) -> None:
    parser = expat.ParserCreate()
    if handler:
        parser.StartElementHandler = lambda name, attrs: None
    view = memoryview(data)  # the chunks parse_report reads from bytes, as in _text
    for start in range(0, len(data), CHUNK_SIZE):
        parser.Parse(bytes(view[start : start + CHUNK_SIZE]), False)
    parser.Parse(b"", True)


def _json(data: bytes) -> None:
    json.loads(data)


def bare_lines(chunks: Iterable[bytes]) -> None:
    """The floor of a text parser: each chunk decoded, split into lines (a cut line waits for the next
    chunk) and every line visited by a Python ``for``, keeping nothing."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending = ""
    for chunk in chunks:
        lines = (pending + decoder.decode(chunk)).split("\n")
        pending = lines.pop()
        for _ in lines:
            pass


def _text(data: bytes) -> None:
    # The chunks parse_report reads from bytes: copies of CHUNK_SIZE slices.
    view = memoryview(data)
    bare_lines(bytes(view[start : start + CHUNK_SIZE]) for start in range(0, len(data), CHUNK_SIZE))


#: format: (generator, the tokenizer's bare pass)
CASES: dict[str, tuple[Callable[[int, int], bytes], Callable[[bytes], None]]] = {
    "jacoco": (jacoco, _expat),
    "clover": (clover, _expat),
    "sonarqube": (sonarqube, _expat),
    "opencover": (opencover, _expat),
    "dotcover": (dotcover, _expat),
    "bullseye": (bullseye, _expat),
    "vscoverage": (vscoverage, _expat),
    "vscoverage:CoverageDSPriv": (vscoverage_data_set, _expat),
    "mono": (mono, _expat),
    "go": (go, _text),
    "lcov": (lcov, _text),
    "gcov": (gcov, _text),
    "xcode": (xcode, _text),
    "xcode:counts-first": (xcode_counts_first, _text),
    "istanbul": (istanbul, _json),
    "istanbul:lineData": (jscover, _json),
    "simplecov": (simplecov, _json),
    "coveralls": (coveralls, _json),
    "codecov": (codecov, _json),
    "gcov_json": (gcov_json, _json),
    "llvm": (llvm, _json),
    "scoverage": (scoverage, _expat),
    "luacov": (luacov, _text),
    "xccov": (xccov, _json),
    "xccov_archive": (xccov_archive, _json),
}


def _best(repeat: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("formats", nargs="*", default=list(CASES))
    args = parser.parse_args()
    print(f"{'format':<10} {'MB':>7} {'parse s':>8} {'bare s':>7} {'ratio':>6}")
    for name in args.formats:
        generate, bare = CASES[name]
        data = generate(args.files, args.lines)
        format = name.partition(":")[0]  # "format:shape" for a format's second shape
        parse = _best(args.repeat, lambda: sum(1 for _ in parse_report(data, format=format)))  # noqa: B023
        tokenize = _best(args.repeat, lambda: bare(data))  # noqa: B023
        print(f"{name:<10} {len(data) / 1e6:7.1f} {parse:8.2f} {tokenize:7.2f} {parse / tokenize:6.2f}")
        if bare is _expat:
            alone = _best(args.repeat, lambda: _expat(data, handler=False))  # noqa: B023
            print(f"{'':<10} expat with no handler: {alone:.2f} s, the parser {parse / alone:.2f}x that")


if __name__ == "__main__":
    main()
