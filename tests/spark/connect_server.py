"""A Spark Connect server of another PySpark, for a client of this one (run as a script).

``python tests/spark/connect_server.py PORT WAREHOUSE`` with a PySpark 4 interpreter starts a
local driver serving Spark Connect on ``127.0.0.1:PORT``, prints ``ready`` once it serves, and
stops when its standard input closes. The tests of an older PySpark's client start it from the
interpreter named by ``OPENLINEAGE_SDK_TEST_CONNECT_SERVER_PYTHON`` (noxfile.py's 3.x sessions).
"""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession


def main() -> None:
    """Serve until standard input closes."""
    port, warehouse = sys.argv[1], sys.argv[2]
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("connect_server")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", warehouse)
        .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
        .config("spark.connect.grpc.binding.address", "127.0.0.1")
        .config("spark.connect.grpc.binding.port", port)
        .getOrCreate()
    )
    print("ready", spark.version, flush=True)
    sys.stdin.read()
    spark.stop()


if __name__ == "__main__":
    main()
