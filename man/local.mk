# SPDX-License-Identifier: GPL-3.0-or-later
# man/local.mk: the manual pages, and what `make install` puts beside the
# destor binary. destor(1) and the bench pages are roff kept in man/;
# destor.config(5) is made from the sample destor.config and each Python
# command's page from its own --help (man/config-man.py, man/script-man.py),
# so a page cannot drift from what it describes. Each Python command goes to
# bindir as a wrapper that runs main() of destor_tools/commands/NAME.py from
# pkgdatadir, where the package (scripts/destor_tools/) goes with
# destor_tools/installed.py naming the installed destor.  The commands' list, PLC_COMMANDS, is also
# scripts/pyproject.toml's [project.scripts] (tests/scripts/check-package.sh
# checks that they agree).
PYTHON3 = /usr/bin/python3
PLC_COMMANDS = gen-dataset gen-trace replay experiment endurance-compare smart-sample smart-diff \
	import-trace compare budget-goal
COMMAND_PAGES = man/gen-dataset.1 man/gen-trace.1 man/replay.1 man/experiment.1 \
	man/endurance-compare.1 man/smart-sample.1 man/smart-diff.1 man/import-trace.1 man/compare.1 \
	man/budget-goal.1
dist_man_MANS = man/destor.1
man_MANS = man/destor.config.5 $(COMMAND_PAGES)
# every command ships in the tarball from this one list
EXTRA_DIST += $(PLC_COMMANDS:%=scripts/%)
dist_doc_DATA = destor.config
CLEANFILES += $(man_MANS)
EXTRA_DIST += man/config-man.py man/script-man.py man/bench-store.sh.1 man/bench-cache.sh.1 \
	man/bench-replay.sh.1 man/bench-rados.sh.1 man/bench-rados-list.sh.1 man/bench-gc.sh.1 man/bench-chunk-log.sh.1 man/bench-restore.sh.1 \
	man/bench-compress.sh.1 man/bench-granularity.sh.1 man/bench-index.sh.1 \
	man/bench-chunk-buckets.sh.1 man/bench-mount.sh.1 man/bench-mount-chunk.sh.1 man/bench-container-cache.sh.1 man/bench-builds.sh.1 \
	man/bench-opt-budget.sh.1

man/destor.config.5: destor.config man/config-man.py
	$(AM_V_GEN)$(MKDIR_P) man && \
	$(PYTHON3) $(srcdir)/man/config-man.py $(srcdir)/destor.config > $@.tmp && mv $@.tmp $@

$(COMMAND_PAGES): man/script-man.py $(PLC_COMMANDS:%=scripts/%) $(DESTOR_TOOLS_PY:%=scripts/%)
	$(AM_V_GEN)$(MKDIR_P) man && \
	$(PYTHON3) $(srcdir)/man/script-man.py $(srcdir)/scripts/`basename $@ .1` > $@.tmp && mv $@.tmp $@

install-exec-local:
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	for s in $(PLC_COMMANDS); do \
	  printf '#!%s\n# %s: installed by make install; the command is destor_tools/commands/%s.py.\nimport sys\n\nsys.dont_write_bytecode = True\nsys.path.insert(0, "%s")\nfrom destor_tools.commands.%s import main  # noqa: E402\n\nsys.exit(main())\n' \
	    '$(PYTHON3)' "$$s" `echo "$$s" | tr - _` '$(pkgdatadir)' `echo "$$s" | tr - _` \
	    > '$(DESTDIR)$(bindir)/'$$s && chmod 755 '$(DESTDIR)$(bindir)/'$$s || exit 1; \
	done

install-data-local:
	$(MKDIR_P) '$(DESTDIR)$(pkgdatadir)/destor_tools/commands'
	for m in $(DESTOR_TOOLS_PY); do \
	  $(INSTALL_DATA) "$(srcdir)/scripts/$$m" '$(DESTDIR)$(pkgdatadir)/'`dirname "$$m"`/ || exit 1; done
	printf '"""installed: written by make install: the installed destor."""\nDESTOR = "%s/destor"\n' \
	  '$(bindir)' > '$(DESTDIR)$(pkgdatadir)/destor_tools/installed.py'

uninstall-local:
	for s in $(PLC_COMMANDS); do rm -f '$(DESTDIR)$(bindir)/'$$s; done
	for m in $(DESTOR_TOOLS_PY); do rm -f '$(DESTDIR)$(pkgdatadir)/'$$m; done
	rm -rf '$(DESTDIR)$(pkgdatadir)/destor_tools/installed.py' '$(DESTDIR)$(pkgdatadir)/destor_tools/__pycache__' \
	  '$(DESTDIR)$(pkgdatadir)/destor_tools/commands/__pycache__'
	-rmdir '$(DESTDIR)$(pkgdatadir)/destor_tools/commands'
	-rmdir '$(DESTDIR)$(pkgdatadir)/destor_tools'
	-rmdir '$(DESTDIR)$(pkgdatadir)'

EXTRA_DIST += tests/install/man_pages.sh tests/install/install.sh
