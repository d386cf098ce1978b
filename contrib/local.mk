# contrib: files are listed here as they land
# Example topologies: installed under $(pkgdatadir)/topologies.
topologiesdir = $(pkgdatadir)/topologies
dist_topologies_DATA = \
	contrib/topologies/worldwide-8.json \
	contrib/topologies/aws-4.json \
	contrib/topologies/two-sites-thin-link.json \
	contrib/topologies/two-datacenters-dedicated.json

# Synthetic coflow traces from our generator: installed under $(pkgdatadir)/traces.
tracesdir = $(pkgdatadir)/traces
dist_traces_DATA = \
	contrib/traces/README.md \
	contrib/traces/synthetic-20p-60c.txt \
	contrib/traces/synthetic-50p-200c.txt \
	contrib/traces/jobs-aws4-small.csv

# Slurm integration examples
EXTRA_DIST += contrib/slurm/spiderflow.conf contrib/slurm/slurm.conf.example contrib/slurm/plugstack.conf.example

# The federation broker and the cluster agent: example configs and systemd units (binary and
# doc paths filled in at build).
dist_pkgdata_DATA += contrib/federation/brokerd.conf contrib/federation/agent.conf
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = contrib/federation/spiderflow-brokerd.service contrib/federation/spiderflow-agent.service
EXTRA_DIST += contrib/federation/spiderflow-brokerd.service.in contrib/federation/spiderflow-agent.service.in
CLEANFILES += $(systemdunit_DATA)
contrib/federation/%.service: $(srcdir)/contrib/federation/%.service.in
	$(MKDIR_P) contrib/federation && sed -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@docdir[@]|$(docdir)|g' $< >$@

# The Grafana dashboard over the broker's /metrics and the agents' textfiles (doc/monitoring.md):
# installed under $(pkgdatadir)/grafana.
grafanadir = $(pkgdatadir)/grafana
dist_grafana_DATA = contrib/grafana/spiderflow.json
