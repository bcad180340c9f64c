# gpunet developer entry points. Every target installs what it needs first (scripts/setup.sh).
VENV ?= .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export CONTAINERS_CONF := $(CURDIR)/molecule/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg

.PHONY: setup lint pytest molecule test

setup:
	@scripts/setup.sh

lint: setup
	ruff check src tests plugins benchmarks
	ruff format --check src tests plugins benchmarks
	ansible-lint --profile production

pytest: setup
	scripts/build-base-image.sh
	pytest

molecule: setup
	scripts/run-molecule.sh

# The README's test command: lint, unit and integration tests, then the Molecule scenarios.
test: lint pytest molecule
