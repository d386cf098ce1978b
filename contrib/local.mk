# contrib: files are listed here as they land
# Example topologies: installed under $(pkgdatadir)/topologies.
topologiesdir = $(pkgdatadir)/topologies
dist_topologies_DATA = \
	contrib/topologies/worldwide-8.json \
	contrib/topologies/aws-4.json \
	contrib/topologies/two-sites-thin-link.json

# Synthetic coflow traces from our generator: installed under $(pkgdatadir)/traces.
tracesdir = $(pkgdatadir)/traces
dist_traces_DATA = \
	contrib/traces/README.md \
	contrib/traces/synthetic-20p-60c.txt \
	contrib/traces/synthetic-50p-200c.txt

# Slurm integration examples
EXTRA_DIST += contrib/slurm/spiderflow.conf contrib/slurm/slurm.conf.example contrib/slurm/plugstack.conf.example

# The federation broker: an example config and a systemd unit (its binary path filled in at build).
dist_pkgdata_DATA += contrib/federation/brokerd.conf
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = contrib/federation/spiderflow-brokerd.service
EXTRA_DIST += contrib/federation/spiderflow-brokerd.service.in
CLEANFILES += contrib/federation/spiderflow-brokerd.service
contrib/federation/spiderflow-brokerd.service: $(srcdir)/contrib/federation/spiderflow-brokerd.service.in
	$(MKDIR_P) contrib/federation && sed 's|@sbindir[@]|$(sbindir)|g' $(srcdir)/contrib/federation/spiderflow-brokerd.service.in >$@
