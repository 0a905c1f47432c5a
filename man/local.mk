# SPDX-License-Identifier: GPL-3.0-or-later
# man/local.mk: the manual pages, and what `make install` puts beside the
# destor binary. destor(1) and the bench pages are roff kept in man/;
# destor.config(5) is made from the sample destor.config and each Python
# command's page from its own --help (man/config-man.py, man/script-man.py),
# so a page cannot drift from what it describes. The Python commands go to
# bindir with their module path set to pkgdatadir, where their package
# (scripts/destor_tools/) goes with destor_tools/installed.py naming the
# installed destor.
PYTHON3 = /usr/bin/python3
PLC_COMMANDS = gen-dataset gen-trace replay experiment endurance-compare smart-sample smart-diff \
	import-trace compare
COMMAND_PAGES = man/gen-dataset.1 man/gen-trace.1 man/replay.1 man/experiment.1 \
	man/endurance-compare.1 man/smart-sample.1 man/smart-diff.1 man/import-trace.1 man/compare.1
dist_man_MANS = man/destor.1
man_MANS = man/destor.config.5 $(COMMAND_PAGES)
dist_doc_DATA = destor.config
CLEANFILES += $(man_MANS)
EXTRA_DIST += man/config-man.py man/script-man.py man/bench-store.sh.1 man/bench-cache.sh.1 \
	man/bench-replay.sh.1 man/bench-rados.sh.1 man/bench-gc.sh.1 man/bench-chunk-log.sh.1 man/bench-restore.sh.1 \
	man/bench-compress.sh.1 man/bench-granularity.sh.1 man/bench-index.sh.1 \
	man/bench-chunk-buckets.sh.1 man/bench-mount.sh.1

man/destor.config.5: destor.config man/config-man.py
	$(AM_V_GEN)$(MKDIR_P) man && \
	$(PYTHON3) $(srcdir)/man/config-man.py $(srcdir)/destor.config > $@.tmp && mv $@.tmp $@

$(COMMAND_PAGES): man/script-man.py $(PLC_COMMANDS:%=scripts/%)
	$(AM_V_GEN)$(MKDIR_P) man && \
	$(PYTHON3) $(srcdir)/man/script-man.py $(srcdir)/scripts/`basename $@ .1` > $@.tmp && mv $@.tmp $@

install-exec-local:
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	for s in $(PLC_COMMANDS); do \
	  sed -e 's|^sys\.path\.insert(0, os\.path\.dirname(os\.path\.[a-z]*(__file__)))$$|sys.path.insert(0, "$(pkgdatadir)")|' \
	    '$(srcdir)/scripts/'$$s > '$(DESTDIR)$(bindir)/'$$s && chmod 755 '$(DESTDIR)$(bindir)/'$$s || exit 1; \
	  if grep -q '^sys\.path\.insert(0, os\.path' '$(DESTDIR)$(bindir)/'$$s; then \
	    echo "install: scripts/$$s: its module path was not substituted" >&2; exit 1; fi; \
	done

install-data-local:
	$(MKDIR_P) '$(DESTDIR)$(pkgdatadir)/destor_tools'
	for m in $(srcdir)/scripts/destor_tools/*.py; do \
	  $(INSTALL_DATA) "$$m" '$(DESTDIR)$(pkgdatadir)/destor_tools/' || exit 1; done
	printf '"""installed: written by make install: the installed destor."""\nDESTOR = "%s/destor"\n' \
	  '$(bindir)' > '$(DESTDIR)$(pkgdatadir)/destor_tools/installed.py'

uninstall-local:
	for s in $(PLC_COMMANDS); do rm -f '$(DESTDIR)$(bindir)/'$$s; done
	for m in $(srcdir)/scripts/destor_tools/*.py; do rm -f '$(DESTDIR)$(pkgdatadir)/destor_tools/'`basename "$$m"`; done
	rm -rf '$(DESTDIR)$(pkgdatadir)/destor_tools/installed.py' '$(DESTDIR)$(pkgdatadir)/destor_tools/__pycache__'
	-rmdir '$(DESTDIR)$(pkgdatadir)/destor_tools'
	-rmdir '$(DESTDIR)$(pkgdatadir)'

EXTRA_DIST += tests/install/man_pages.sh tests/install/install.sh
