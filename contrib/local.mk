# contrib: files are listed here as they land
# Example topologies (engineer topo): installed under $(pkgdatadir)/topologies.
topologiesdir = $(pkgdatadir)/topologies
dist_topologies_DATA = \
	contrib/topologies/worldwide-8.json \
	contrib/topologies/aws-4.json \
	contrib/topologies/two-sites-thin-link.json
