# SwiftCab: `make run` serves on http://localhost:8080; `make test` runs every test.
SHELL := /bin/bash
DATA ?= data/cab
MAP ?= data/maps/helsinki.osm.pbf
PORT ?= 8080
HOST ?= 0.0.0.0
CAB := .build/release/cab

.PHONY: run test deps test-deps map build build-debug import test-swift test-browser bench clean

run: deps map build import
	$(CAB) serve --data $(DATA) --host $(HOST) --port $(PORT)

test: test-deps map build-debug test-swift test-browser

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

map: $(MAP)

$(MAP):
	@scripts/fetch-map.sh $(MAP)

build:
	swift build -c release --product cab

build-debug:
	swift build --build-tests

# Re-import only when the map or the binary changed.
import: $(DATA)/.imported

$(DATA)/.imported: $(MAP) $(CAB)
	$(CAB) import $(MAP) --data $(DATA)
	@touch $@

test-swift:
	swift test --skip-build

test-browser:
	@scripts/test-browser.sh

bench: build
	$(CAB) bench route --map ../shared/data/liechtenstein-latest.osm.pbf

clean:
	rm -rf .build data/cab
