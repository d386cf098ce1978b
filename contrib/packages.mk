# Packages for sites (README.md, "Installing at a site"): `make deb` builds the Debian packages
# (contrib/debian) and `make rpm` the RPMs (contrib/rpm/spiderflow.spec) of this tree into
# $(PACKAGES_DIR). Both build from `make distdir`'s copy, so what a package holds is what the
# tree ships, and with the compiler and Slurm source this tree was configured with.
PACKAGES_DIR = $(abs_top_builddir)/packages
EXTRA_DIST += contrib/debian contrib/rpm/spiderflow.spec

# dpkg-buildpackage writes beside the tree it builds: the packages are then moved up. The copy
# keeps one path, so a rebuild finds ccache's objects (the path is in every compile line); and
# ccache is told its own cache, since debhelper points HOME at a throw-away directory.
deb_tree = $(PACKAGES_DIR)/src/$(PACKAGE)-$(VERSION)
deb:
	rm -rf $(PACKAGES_DIR)/src && $(MKDIR_P) $(PACKAGES_DIR)/src
	$(MAKE) $(AM_MAKEFLAGS) distdir distdir=$(deb_tree)
	cp -R $(deb_tree)/contrib/debian $(deb_tree)/debian
	test "$$(cd $(deb_tree) && dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
	  { echo "spiderflow: contrib/debian/changelog's version is not configure.ac's $(VERSION): add an entry" >&2; exit 1; }
	cd $(deb_tree) && if command -v ccache >/dev/null; then CCACHE_DIR=$${CCACHE_DIR:-$$(ccache -k cache_dir)}; export CCACHE_DIR; fi && \
	  CC='$(CC)' CXX='$(CXX)' SF_SLURM_SOURCE='$(SLURM_SOURCE)' \
	  DEB_BUILD_OPTIONS="nocheck $${DEB_BUILD_OPTIONS:-parallel=1}" dpkg-buildpackage -b -us -uc
	rm -f $(PACKAGES_DIR)/*.deb $(PACKAGES_DIR)/*.ddeb $(PACKAGES_DIR)/*.changes $(PACKAGES_DIR)/*.buildinfo
	mv $(PACKAGES_DIR)/src/*.deb $(PACKAGES_DIR)/src/*.changes $(PACKAGES_DIR)/src/*.buildinfo $(PACKAGES_DIR)/
	-mv $(PACKAGES_DIR)/src/*.ddeb $(PACKAGES_DIR)/ 2>/dev/null
	@echo "spiderflow: packages in $(PACKAGES_DIR):"; cd $(PACKAGES_DIR) && ls *.deb

# rpmbuild from the dist tarball. On Debian, rpm has no database of the installed packages, so
# the spec's BuildRequires (RHEL's names) cannot be checked: --nodeps there, and Requires on Slurm
# are left out (the spec reads Slurm's version from rpm's database); nor has it RHEL's debuginfo
# tools, so no -debuginfo packages there.
RPMBUILD_FLAGS = $(if $(wildcard /etc/debian_version),--nodeps --define 'debug_package %{nil}')
rpm: dist-gzip
	rm -rf $(PACKAGES_DIR)/rpm && $(MKDIR_P) $(PACKAGES_DIR)/rpm/SOURCES
	mv $(DIST_ARCHIVES) $(PACKAGES_DIR)/rpm/SOURCES/
	CC='$(CC)' CXX='$(CXX)' rpmbuild -bb $(RPMBUILD_FLAGS) --define "_topdir $(PACKAGES_DIR)/rpm" \
	  --define "sf_version $(VERSION)" $(if $(SLURM_SOURCE),--define "slurm_source $(SLURM_SOURCE)") \
	  $(srcdir)/contrib/rpm/spiderflow.spec
	@echo "spiderflow: packages in $(PACKAGES_DIR)/rpm/RPMS:"; cd $(PACKAGES_DIR)/rpm/RPMS && ls */*.rpm

# Where the Slurm plugins install (configure's choice), for contrib/debian/rules.
print-slurm-plugindir:
	@echo $(slurmplugindir)

.PHONY: deb rpm print-slurm-plugindir
