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
