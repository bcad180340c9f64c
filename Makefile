# gpunet developer entry points. Every target installs what it needs first (scripts/setup.sh).
VENV ?= .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export CONTAINERS_CONF := $(CURDIR)/molecule/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg

.PHONY: setup lint pytest molecule test demo

setup:
	@scripts/setup.sh

lint: setup
	ruff check .
	ruff format --check .
	ansible-lint --profile production

pytest: setup
	scripts/build-base-image.sh
	pytest

molecule: setup
	scripts/run-molecule.sh

# The README's test command: lint, unit and integration tests, then the Molecule scenarios.
test: lint pytest molecule

# The first command for a newcomer: bring up the lab (containers + simulated switches), deploy
# site.yml to it, validate it and say where the reports are (docs/lab.md). `gpunet lab down` ends it.
demo: setup
	scripts/demo.sh
