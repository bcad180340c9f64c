# gpunet developer entry points. Every target installs what it needs first (scripts/setup.sh).
VENV ?= .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export CONTAINERS_CONF := $(CURDIR)/molecule/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg

.PHONY: setup lint pytest molecule sanity test test-nccl-build demo

setup:
	@scripts/setup.sh

lint: setup
	ruff check .
	ruff format --check .
	ansible-lint --profile production

# Two processes: Ansible's plugin and collection loaders are process-wide, and the role-template
# tests (tests/unit/roles) set up the project's collection path for gpunet.fabric filters, which
# changes how the in-process inventory loader reports broken sources (tests/unit/model), while the
# loader parity tests leave state that hides those filters. Run them apart, as separate processes.
# --durations: the CI log lists the slowest tests, what to look at when the run nears its 45 minutes.
# Two xdist workers: the lab's e2e modules run on one (tests/conftest.py keeps what shares the lab,
# or one module's fixtures, on one worker, in file order) while the other runs everything else,
# much of which waits on simulators and subprocesses rather than on a core. No reordering: the lab,
# the longest group, is collected first and so starts first.
PYTEST_WORKERS ?= 2
pytest: setup
	scripts/build-base-image.sh
	pytest -n $(PYTEST_WORKERS) --no-loadscope-reorder --ignore=tests/unit/roles --durations=40
	pytest tests/unit/roles

molecule: setup
	scripts/run-molecule.sh

# ansible-test sanity on the built gpunet.fabric collection, offline (scripts/sanity.sh, docs/install.md).
sanity: setup
	scripts/sanity.sh

# nccl-tests built for real against CUDA 13 (about 4 min of compiling): not in `make test`, whose
# pytest skips folders named build (norecursedirs); run it when nvidia_releases.yml changes.
test-nccl-build: setup
	pytest tests/integration/build

# The README's test command: lint, ansible-test sanity, unit and integration tests, then the Molecule scenarios.
test: lint sanity pytest molecule

# The first command for a newcomer: bring up the lab (containers + simulated switches), deploy
# site.yml to it, validate it and say where the reports are (docs/lab.md). `gpunet lab down` ends it.
demo: setup
	scripts/demo.sh
