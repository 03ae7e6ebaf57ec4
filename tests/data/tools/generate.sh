#!/bin/sh
# Regenerates the real tools' reports in tests/data/tools/: run by hand, never by CI.
#
# Each tool runs on a small program of src/ with partial coverage (a branch not taken, a function not
# called) and writes its reports AND its own per-file summary, which tests/parsers/test_tool_reports.py
# compares the parsers with. The programs are built in WORK (an absolute folder, so the absolute paths
# that gcov, llvm-cov, nyc and PHPUnit write are the same on every machine).
#
# Tools (Debian 12): apt-get install golang-go gcc gcovr clang llvm ruby-simplecov libjacoco-java ant
# default-jdk-headless ldc gap-core gap-dev gap-io gap-gapdoc mono-mcs mono-runtime libmono-profiler php-cli
# phpunit php-pcov nodejs npm r-cran-covr lua5.4 luarocks; nyc, c8, flow-bin and flow-coverage-report from npm
# (installed into WORK/node); luacov with `luarocks --lua-version 5.4 install luacov` (not in Debian), or its
# source tree named by LUACOV_SRC; GAP's profiling package (not in Debian) from its source tree named by
# PROFILING_SRC. Usage: sh tests/data/tools/generate.sh [tool ...]
# (go c llvm js ruby java java_modules d flow gap mono php r lua)
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/flask-coverage-tools}
TOOLS=${*:-go c llvm js ruby java java_modules d flow gap mono php r lua}

# fresh TOOL [PROGRAM]: a clean WORK/TOOL holding src/PROGRAM (default: src/TOOL).
fresh() { rm -rf "$WORK/$1" && mkdir -p "$WORK/$1" "$HERE/$1" && cp -R "$HERE/src/${2:-$1}/." "$WORK/$1/"; }

go_reports() {
    fresh go && cd "$WORK/go"
    for mode in set count atomic; do
        GOFLAGS=-mod=mod go test -covermode=$mode -coverprofile="$HERE/go/cover-$mode.out" ./... >/dev/null
    done
    go tool cover -func="$HERE/go/cover-count.out" >"$HERE/go/cover-func.txt"
}

c_reports() {
    fresh c && cd "$WORK/c"
    gcc --coverage -O0 -c main.c shapes.c && gcc --coverage -o shapes main.o shapes.o
    ./shapes >/dev/null
    gcov -pb main.c shapes.c >/dev/null
    rm -f "$HERE"/c/*.gcov && cp ./*.gcov "$HERE/c/"
    gcov --json-format -b main.c shapes.c >/dev/null
    for f in main shapes; do gunzip -c "$f.gcov.json.gz" >"$HERE/c/$f.gcov.json"; done
    # gcovr 5.2 (Debian 12) writes no LCOV; its Coveralls output stands in for a third format.
    gcovr --root . --cobertura "$HERE/c/gcovr-cobertura.xml" --json "$HERE/c/gcovr.json" \
        --sonarqube "$HERE/c/gcovr-sonarqube.xml" --txt "$HERE/c/gcovr-summary.txt" \
        --coveralls "$HERE/c/gcovr-coveralls.json" 2>/dev/null
}

llvm_reports() {
    fresh llvm c && cd "$WORK/llvm"
    clang -fprofile-instr-generate -fcoverage-mapping -O0 -o shapes main.c shapes.c
    LLVM_PROFILE_FILE=shapes.profraw ./shapes >/dev/null
    llvm-profdata merge -sparse shapes.profraw -o shapes.profdata
    llvm-cov export -instr-profile=shapes.profdata ./shapes >"$HERE/llvm/export.json"
    llvm-cov export -format=lcov -instr-profile=shapes.profdata ./shapes >"$HERE/llvm/export.lcov"
    llvm-cov report -instr-profile=shapes.profdata ./shapes >"$HERE/llvm/report.txt"
    # Xcode's codecov plugin uploads this text (llvm-cov show), one file after the other.
    llvm-cov show -instr-profile=shapes.profdata ./shapes >"$HERE/llvm/show.txt"
    llvm-cov show -use-color -instr-profile=shapes.profdata ./shapes >"$HERE/llvm/show-color.txt"
}

js_reports() {
    fresh js && cd "$WORK/js"
    if [ ! -x "$WORK/node/node_modules/.bin/nyc" ]; then
        mkdir -p "$WORK/node" && (cd "$WORK/node" && npm init -y >/dev/null && npm install --no-audit --no-fund nyc@17 c8@10 >/dev/null)
    fi
    "$WORK/node/node_modules/.bin/nyc" --reporter=json --reporter=lcovonly --reporter=clover --reporter=cobertura \
        --reporter=text --report-dir="$WORK/js/out" node main.js >/dev/null
    "$WORK/node/node_modules/.bin/nyc" report --reporter=text --report-dir="$WORK/js/out" >"$HERE/js/nyc-text.txt"
    cp out/coverage-final.json out/lcov.info out/clover.xml out/cobertura-coverage.xml "$HERE/js/"
    # c8 (V8's own counts) and node's test runner write LCOV of the same calls.
    "$WORK/node/node_modules/.bin/c8" --reporter=lcovonly --reporter=text --reports-dir="$WORK/js/c8" \
        --exclude=main.test.js node main.js | sed -n '/^-/,$p' >"$HERE/js/c8-text.txt"
    cp c8/lcov.info "$HERE/js/c8.lcov"
    node --test --experimental-test-coverage --test-reporter=lcov --test-reporter-destination="$HERE/js/node-test.lcov" \
        --test-reporter=spec --test-reporter-destination="$HERE/js/node-test-text.txt" main.test.js
}

ruby_reports() {
    fresh ruby && cd "$WORK/ruby"
    # SimpleCov's own summary is the line it prints ("... 9 / 12 LOC (75.0%) covered."): one file.
    ruby run.rb | grep -E "LOC|Branch" >"$HERE/ruby/simplecov-summary.txt"
    cp coverage/.resultset.json "$HERE/ruby/resultset.json"
    # The JSON formatter's coverage.json is written only where its gem is installed (not in Debian 12).
    if [ -f coverage/coverage.json ]; then cp coverage/coverage.json "$HERE/ruby/coverage.json"; fi
}

java_reports() {
    fresh java && cd "$WORK/java"
    mkdir -p classes && javac --release 11 -g -d classes src/com/example/shapes/Shapes.java
    cat >build.xml <<'XML'
<project name="shapes" xmlns:jacoco="antlib:org.jacoco.ant">
  <taskdef uri="antlib:org.jacoco.ant" resource="org/jacoco/ant/antlib.xml" classpath="/usr/share/java/org.jacoco.ant.jar:/usr/share/java/org.jacoco.core.jar:/usr/share/java/org.jacoco.report.jar:/usr/share/java/org.jacoco.agent.jar:/usr/share/java/asm.jar:/usr/share/java/asm-commons.jar:/usr/share/java/asm-tree.jar"/>
  <target name="report">
    <jacoco:coverage destfile="jacoco.exec">
      <java classname="com.example.shapes.Shapes" classpath="classes" fork="true"/>
    </jacoco:coverage>
    <jacoco:report>
      <executiondata><file file="jacoco.exec"/></executiondata>
      <structure name="shapes"><classfiles><fileset dir="classes"/></classfiles>
        <sourcefiles><fileset dir="src"/></sourcefiles></structure>
      <xml destfile="jacoco.xml"/><csv destfile="jacoco.csv"/>
    </jacoco:report>
  </target>
</project>
XML
    ant -q report >/dev/null
    cp jacoco.xml jacoco.csv "$HERE/java/"
}

# java_modules: a two-module build as Maven and Gradle run it: each module's main under the agent, and
# one report per module named after it (<structure name="module_a"> gives <report name="module_a">) with
# paths relative to its src/main/java, so both modules hold com/x/Util.java.
java_modules_reports() {
    fresh java_modules && cd "$WORK/java_modules"
    for module in module_a module_b; do
        mkdir -p "$module/classes" "$HERE/java_modules/$module"
        javac --release 11 -g -d "$module/classes" "$module/src/main/java/com/x/Util.java"
        cat >"$module/build.xml" <<XML
<project name="$module" xmlns:jacoco="antlib:org.jacoco.ant">
  <taskdef uri="antlib:org.jacoco.ant" resource="org/jacoco/ant/antlib.xml" classpath="/usr/share/java/org.jacoco.ant.jar:/usr/share/java/org.jacoco.core.jar:/usr/share/java/org.jacoco.report.jar:/usr/share/java/org.jacoco.agent.jar:/usr/share/java/asm.jar:/usr/share/java/asm-commons.jar:/usr/share/java/asm-tree.jar"/>
  <target name="report">
    <jacoco:coverage destfile="jacoco.exec">
      <java classname="com.x.Util" classpath="classes" fork="true"/>
    </jacoco:coverage>
    <jacoco:report>
      <executiondata><file file="jacoco.exec"/></executiondata>
      <structure name="$module"><classfiles><fileset dir="classes"/></classfiles>
        <sourcefiles><fileset dir="src/main/java"/></sourcefiles></structure>
      <xml destfile="jacoco.xml"/><csv destfile="jacoco.csv"/>
    </jacoco:report>
  </target>
</project>
XML
        (cd "$module" && ant -q report >/dev/null && cp jacoco.xml jacoco.csv "$HERE/java_modules/$module/")
    done
}

d_reports() {
    fresh d && cd "$WORK/d"
    # -cov writes one listing per module, named after its path (source/shapes.d: source-shapes.lst), its
    # last row the compiler's own summary ("source/shapes.d is 66% covered").
    ldc2 -cov -Isource -of=shapes source/app.d source/shapes.d && ./shapes >/dev/null
    rm -f "$HERE"/d/*.lst && cp source-app.lst source-shapes.lst "$HERE/d/"
}

flow_reports() {
    fresh flow && cd "$WORK/flow"
    if [ ! -x "$WORK/node/node_modules/.bin/flow-coverage-report" ]; then
        mkdir -p "$WORK/node" && (cd "$WORK/node" && npm install --no-audit --no-fund flow-bin@0.336 flow-coverage-report@0.8 >/dev/null)
    fi
    # Flow's coverage is of types: an expression typed `any` is uncovered. flow-coverage-report runs
    # `flow coverage --json` on each file and writes them in one JSON (what Codecov reads) and its table.
    bin="$WORK/node/node_modules/.bin"
    "$bin/flow-coverage-report" -f "$bin/flow" -i 'src/**/*.js' -t json -t text -o out |
        sed 's/\x1b\[[0-9;]*m//g' >"$HERE/flow/flow-coverage-text.txt"
    "$bin/flow" stop >/dev/null 2>&1
    cp out/flow-coverage.json "$HERE/flow/"
}

gap_reports() {
    fresh gap && cd "$WORK/gap"
    # GAP's own line coverage (CoverageLineByLine: a header line, then files interleaved by FileId), and
    # the reports GAP packages upload, written from it by the profiling package (2.6, not in Debian:
    # its source tree named by PROFILING_SRC, built here with gap-dev's gac).
    mkdir -p gaproot/pkg && cp -R "$PROFILING_SRC" gaproot/pkg/profiling
    (cd gaproot/pkg/profiling && ./configure /usr/lib/gap >/dev/null && make >/dev/null)
    gap -q -c "here := \"$WORK/gap\";" run.g </dev/null >/dev/null
    gap -q -l ";$WORK/gap/gaproot" -c "here := \"$WORK/gap\";" report.g </dev/null >/dev/null
    cp profile.coverage "$HERE/gap/line-by-line.coverage"
    cp gap-coverage.json gap.lcov coveralls.json "$HERE/gap/"
}

mono_reports() {
    fresh mono && cd "$WORK/mono"
    # Mono's coverage profiler: each method's statements (IL offsets) with their line and run counter;
    # covfilter keeps the program's assembly (mscorlib's methods are left out, its summary row stays).
    mcs -debug -out:shapes.exe Shapes.cs
    mono --debug --profile=coverage:output=coverage.xml,covfilter-file=covfilter shapes.exe >/dev/null
    cp coverage.xml "$HERE/mono/"
}

php_reports() {
    fresh php && cd "$WORK/php"
    php -d pcov.enabled=1 -d pcov.directory=. /usr/bin/phpunit --coverage-filter . --coverage-clover "$HERE/php/clover.xml" \
        --coverage-cobertura "$HERE/php/cobertura.xml" --coverage-text="$HERE/php/text.txt" --colors=never \
        ShapesTest.php </dev/null >/dev/null
}

r_reports() {
    fresh r && cd "$WORK/r"
    Rscript run.R "$HERE/r"
}

lua_reports() {
    fresh lua && cd "$WORK/lua"
    # luacov's default reporter writes luacov.report.out, its own summary (hits, missed) at the end.
    if [ -n "${LUACOV_SRC:-}" ]; then
        export LUA_PATH="$LUACOV_SRC/?.lua;./?.lua;;" && luacov="lua5.4 $LUACOV_SRC/bin/luacov"
    else
        eval "$(luarocks --lua-version 5.4 path)" && luacov=luacov
    fi
    lua5.4 -lluacov run.lua >/dev/null
    $luacov
    cp luacov.report.out "$HERE/lua/"
}

for tool in $TOOLS; do
    echo "== $tool"
    "${tool}_reports"
done
