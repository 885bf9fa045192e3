/*
 * A library that writes from the JVM, as a company's Scala or Java loader called through py4j
 * would: the tests' stand-in for code the adapter's Python hooks never see.
 */
package io.openlineage.sdk.tests;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

public final class JvmWrites {
  private JvmWrites() {}

  /** Writes a DataFrame as Parquet files into a folder, overwriting it. */
  public static void writeParquet(Dataset<Row> frame, String path) {
    frame.write().mode("overwrite").parquet(path);
  }

  /** Creates a table from a query (CTAS). */
  public static void createTableAs(SparkSession spark, String table, String query) {
    spark.sql("CREATE TABLE " + table + " USING parquet AS " + query);
  }

  /** Merges {@code source} into {@code target} by {@code key} (the test catalog's tables). */
  public static void merge(SparkSession spark, String target, String source, String key) {
    spark.sql(
        "MERGE INTO " + target + " t USING " + source + " s ON t." + key + " = s." + key
            + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
  }
}
