# The two commands of the README: `make demo` and `make test`. Both install what is missing.
SWIFT ?= swift

.PHONY: setup build test demo clean

setup:
	@./scripts/setup.sh

build: setup
	$(SWIFT) build -Xswiftc -warnings-as-errors

# Zero warnings is part of passing: the build treats them as errors.
test: setup
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test

demo: setup
	$(SWIFT) build -Xswiftc -warnings-as-errors --product permit
	$(SWIFT) run --skip-build permit demo

clean:
	rm -rf .build
