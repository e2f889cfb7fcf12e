"""Each paper's Spark jobs, named by paper: ``ppa_queries`` (PPA's Section VI-B queries on the
WC98 log), ``incremental_stream`` (the incremental paper's generated stream and its Spark SQL
oracle), ``khaos_streaming`` (Khaos's phase 2 on a Structured Streaming query)."""
