# scripts: the Python tools for S.M.A.R.T. wear sampling and the endurance
# comparison (docs/SMART.md), and their tests.  They run from the source
# tree and are not installed.
dist_noinst_SCRIPTS += \
	scripts/smart-sample \
	scripts/smart-diff \
	scripts/endurance-compare \
	tests/scripts/run-smart-tests.sh \
	tests/scripts/fake-smartctl \
	tests/scripts/fake-destor

EXTRA_DIST += \
	scripts/smart_units.py \
	scripts/smart_ctl.py \
	scripts/smart_sysfs.py \
	scripts/smart_samples.py \
	scripts/smart_diff.py \
	tests/scripts/test_smart.py \
	tests/fixtures/smart/sata-intel-530.json \
	tests/fixtures/smart/sata-intel-530.advance.json \
	tests/fixtures/smart/sata-crucial-mx500.json \
	tests/fixtures/smart/sata-crucial-mx500.advance.json \
	tests/fixtures/smart/sata-samsung-860evo.json \
	tests/fixtures/smart/sata-samsung-860evo.advance.json \
	tests/fixtures/smart/nvme-samsung-970evoplus.json \
	tests/fixtures/smart/nvme-samsung-970evoplus.advance.json \
	tests/fixtures/smart/sata-vbox-nosmart.json

TESTS += tests/scripts/run-smart-tests.sh

# setup.sh's install step, which waits for another apt's locks, and its test
# (a stand-in apt-get; the real apt is never run).
dist_noinst_SCRIPTS += scripts/apt-install.sh tests/scripts/test-apt-install.sh
TESTS += tests/scripts/test-apt-install.sh
