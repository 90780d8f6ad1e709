"""Loads the captures of a CDX 11 index (a ` CDX N b a m s k ...` header, then one capture a
line) into a table with Common Crawl's columnar names (`url_host_name` from the URL by
Python's parser), runs queries of `freshgp dataset
emit-sql` on it, and prints each one's rows (the history's lines) after a line `-- QUERY`.

Usage: python3 sql_history.py ENGINE CDX SQL...     (ENGINE: duckdb or spark)
"""

import sys
from datetime import datetime, timezone
from urllib.parse import urlsplit

engine, cdx = sys.argv[1], sys.argv[2]
queries = [open(path).read() for path in sys.argv[3:]]

lines = open(cdx).read().splitlines()
letters = lines[0].split()[1:]
rows = []
for line in lines[1:]:
    f = dict(zip(letters, line.split(" ")))
    none = lambda v: None if v == "-" else v
    stamp = datetime.strptime(f["b"][:14], "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)
    status = none(f["s"])
    url = none(f["a"])
    host = urlsplit(url).hostname if url else None
    rows.append((f["N"], stamp, url, None if status is None else int(status),
                 none(f["k"]), none(f["m"]), host))

if engine == "duckdb":
    import duckdb

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("CREATE TABLE ccindex (url_surtkey VARCHAR, fetch_time TIMESTAMP, url VARCHAR, "
                "fetch_status SMALLINT, content_digest VARCHAR, content_mime_type VARCHAR, "
                "url_host_name VARCHAR)")
    con.executemany("INSERT INTO ccindex VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(k, t.replace(tzinfo=None), u, s, d, m, h) for k, t, u, s, d, m, h in rows])
    results = [[r[0] for r in con.execute(sql).fetchall()] for sql in queries]
elif engine == "spark":
    from pyspark.sql import SparkSession
    from pyspark.sql.types import (ShortType, StringType, StructField, StructType,
                                   TimestampType)

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    schema = StructType([StructField("url_surtkey", StringType()),
                         StructField("fetch_time", TimestampType()),
                         StructField("url", StringType()), StructField("fetch_status", ShortType()),
                         StructField("content_digest", StringType()),
                         StructField("content_mime_type", StringType()),
                         StructField("url_host_name", StringType())])
    spark.createDataFrame(rows, schema).createOrReplaceTempView("ccindex")
    results = [[r[0] for r in spark.sql(sql).collect()] for sql in queries]
else:
    sys.exit(f"unknown engine {engine}")

for result in results:
    print("-- QUERY")
    for line in result:
        print(line)
