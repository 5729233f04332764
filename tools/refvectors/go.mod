module blockmodes/tools/refvectors

go 1.22
