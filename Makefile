# The two commands of the README: `make demo` and `make test`. Both install what is missing.
SWIFT ?= swift

.PHONY: setup build test bench lint format generate sanitize docs demo redteam test-lua-source install check-install clean

setup:
	@./scripts/setup.sh

build: setup
	$(SWIFT) build -Xswiftc -warnings-as-errors

# Zero warnings is part of passing: the build treats them as errors. The package is compiled
# once: `swift test` without the same flags would see a different build and compile it all again,
# so it runs what the build made (`--skip-build`), and so does `permit test policies`.
# The suite lays out the HTML reports in a headless browser: `setup.sh browser` installs chromium.
test: setup
	@./scripts/setup.sh browser
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build
	$(SWIFT) run --skip-build permit test policies

# The names C and the warm path use, written again from ContextSchema, their one source
# (Sources/CLuaShim/lazy_names.generated.h, Sources/PermitLua/Context/FastPathKey.generated.swift,
# and the in-place decision reader's Sources/CLuaShim/include/permit_decision.generated.h and
# Sources/CLuaShim/decision_fields.generated.h): the generator is a tool, `permit-generate`
# (Tools/permit-generate, over Tools/GeneratedNames), and the repository's tests
# (Tests/RepositoryTests/GeneratedFilesTests.swift) fail in `make test` while a checked-in file differs.
generate: setup
	$(SWIFT) run permit-generate

# The benchmark package (Benchmarks/, its own package depending on this one by path): built
# without warnings and its tests run (the command line of `permit-benchmark`, the minimal host
# and the policy-layer replay on recorded calls), so it cannot rot. In release mode, the only
# one it measures in, so that one build serves the tests and `swift run -c release
# permit-benchmark ...` (docs/performance.md).
bench: setup
	cd Benchmarks && $(SWIFT) build -c release --build-tests -Xswiftc -warnings-as-errors
	cd Benchmarks && $(SWIFT) test -c release --skip-build

# The code's layout, as .swift-format states it (swift-format ships with the toolchain): 4
# spaces, lines up to 140 (where the code's lines end but for a few long strings), `#if` bodies
# not indented. Of swift-format's rules, four are off because the code uses them on purpose:
# two short statements on one line (`a += 1; b += 1`), `let a = 1, b = 2`, several cases on one
# line, and names that are not lower camel case (`L` for a lua_State, as Lua's own API names it).
# `make format` rewrites the files in place; `make lint` fails on any difference.
# Then the iOS floor, which Linux cannot check by compiling: scripts/check-availability.sh fails on
# API above iOS 15 without `#available`, and on typed-throws function types held as values (their
# metadata needs iOS 18), in the libraries an app links; its self-test plants one of each first.
FORMAT_PATHS = Package.swift Sources Tests Tools examples/host Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Tests
lint:
	$(SWIFT) format lint --strict --parallel --recursive $(FORMAT_PATHS)
	./scripts/check-availability.sh --self-test
	./scripts/check-availability.sh

format:
	$(SWIFT) format format --in-place --parallel --recursive $(FORMAT_PATHS)

# The suite under AddressSanitizer and ThreadSanitizer, each in its own build folder. The ASan
# build compiles Lua from source (scripts/lua-from-source.sh, as `make test-lua-source` and the
# Apple build do), so ASan instruments Lua's own C code as well as the shim's calls into it, and
# this run is also the whole suite on that Lua; the TSan build links the system's Lua, as
# `make test` does. To stay within CI's time, the load test sends 100 × 100 events here instead
# of 100 × 1,000, the fit's round trip runs 5 seeds instead of 20, the tests whose subject is a
# frequency over many simulated runs (an interval's coverage over seeds) are off, and the panel
# test tries two shipped packs instead of all (`underSanitizer` in Tests/PermitTestSupport): a
# sanitizer looks for memory errors and races, which the shorter runs exercise as well; `make
# test` checks the full counts and the coverage.
# ASan checks memory errors (overflows, use after free) but not leaks: Swift packs references
# into enum payload bits (Foundation's Data among them), which LeakSanitizer cannot see, so it
# reports reachable memory as leaked. Leaks are checked by the VM memory tests and the
# benchmark's resident-memory run instead. TSan reads scripts/tsan-suppressions.txt: reports it
# cannot judge (synchronisation inside the uninstrumented Swift runtime), each with why.
sanitize: setup
	$(LUA_SOURCE) sources
	PERMIT_LUA_SCRATCH="$(CURDIR)/.build-asan-luasrc" PERMIT_LOAD_EVENTS=100 PERMIT_FIT_SEEDS=5 PERMIT_SANITIZER=address \
		ASAN_OPTIONS=detect_leaks=0 SWIFT_BIN="$(SWIFT)" $(LUA_SOURCE) swift test --sanitize=address
	PERMIT_LOAD_EVENTS=100 PERMIT_FIT_SEEDS=5 PERMIT_SANITIZER=thread \
		TSAN_OPTIONS=suppressions="$(CURDIR)/scripts/tsan-suppressions.txt" \
		$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

# The libraries' DocC documentation (Sources/*/*.docc and the doc comments), built for every
# library target; any DocC warning (a broken link, a parameter documented under the wrong
# name) fails it, and so does a public declaration without a doc comment. With the system's Lua:
# the documentation build would otherwise turn every trait on. SwiftPM's note that a dependency
# holds files it does not handle (swift-distributed-tracing, which Hummingbird brings) is not
# DocC's and not ours to fix, so it does not count.
DOC_TARGETS = PermitCore PermitSimulator PermitLua PermitInput PermitDelivery PermitFetch PermitScenario PermitSimulation PermitCLI
docs: setup
	@mkdir -p .build
	@$(SWIFT) package --traits SystemLua generate-documentation $(addprefix --target ,$(DOC_TARGETS)) >.build/docs.log 2>&1; \
		status=$$?; cat .build/docs.log; \
		if [ $$status -ne 0 ]; then exit $$status; fi; \
		if grep "warning:" .build/docs.log | grep -vqE "^warning: '[^']+': found [0-9]+ file\(s\) which are unhandled"; then \
			echo "make docs: DocC reported warnings (above)"; exit 1; fi
	./scripts/check-doc-comments.sh

# The main job on the shipped examples: the polite policy played through the walkthroughs,
# then the pack tests.
demo: setup
	$(SWIFT) build -Xswiftc -warnings-as-errors --product permit
	$(SWIFT) run --skip-build permit run policies/polite examples/walkthrough.yaml examples/ios9-denied.yaml
	$(SWIFT) run --skip-build permit test policies

# The sandbox's attack battery (docs/security.md, "Red team"): a release build, then one case
# per attack class through the real CLI, each policy call timed in-process. Fails unless every
# case ends in a typed error within the time limit plus 10 %. The runner is a tool
# (Tools/permit-redteam), not part of the product; its cases are the fixtures in
# Tools/permit-redteam/attacks/ (battery.yaml and the files it names), which tests read too.
redteam: setup
	$(SWIFT) build -c release -Xswiftc -warnings-as-errors --product permit
	$(SWIFT) build -c release -Xswiftc -warnings-as-errors --product permit-redteam
	BIN="$$($(SWIFT) build -c release --show-bin-path)"; "$$BIN/permit-redteam" "$$BIN/permit"

# Permit with Lua compiled from source, as iOS and macOS always build it (Package.swift; here the
# trait LuaFromSource): Lua's sources in Sources/CPermitLua/lua (the submodule, or Debian's lua5.4
# source package of the very release the submodule pins, standing in when the submodule cannot
# be fetched), every Lua symbol prefixed and io, os and package left out. A release build, as an
# app ships it: the red team on it (`make redteam`), the symbol check on its objects and `permit`
# (no unprefixed Lua or shim symbol, no system/popen/dlopen, Lua's POSIX jumps, and a program
# linking the system's static Lua beside Permit's runs both), then every pack's scenarios. The
# whole suite runs on this Lua under AddressSanitizer (`make sanitize`), which then sees inside
# Lua too; running it a second time here without one would find nothing new for the time it costs.
LUA_SOURCE = ./scripts/lua-from-source.sh
test-lua-source: setup
	$(LUA_SOURCE) sources
	$(MAKE) redteam SWIFT="$(LUA_SOURCE) swift"
	$(LUA_SOURCE) check-symbols release
	"$$($(LUA_SOURCE) swift build -c release --show-bin-path)/permit" test policies

# `permit` for machines and CI jobs without Swift: a release build installed to $(PREFIX)/bin.
# On Linux it carries the Swift runtime, Foundation, Lua and libyaml inside (static), so it runs
# with neither a toolchain nor liblua installed; on macOS Lua is compiled in (as on every Apple
# platform) and libyaml is Homebrew's (scripts/install.sh says how). Its own build folder: .build-install.
PREFIX ?= /usr/local
install:
	PREFIX="$(PREFIX)" SWIFT="$(SWIFT)" ./scripts/install.sh

# What a user of `make install` relies on, checked on an install into .build-install/prefix:
# `ldd` lists no Swift runtime and no Lua, and the binary passes every pack's tests with an
# empty environment (`env -i`).
check-install:
	rm -rf .build-install/prefix
	$(MAKE) install PREFIX="$(CURDIR)/.build-install/prefix"
	./scripts/check-install.sh .build-install/prefix/bin/permit

clean:
	rm -rf .build .build-install .build-lua .build-luasrc Benchmarks/.build
