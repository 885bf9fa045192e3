/*
 * A library that writes from the JVM, as a company's Scala or Java loader called through py4j
 * would: the tests' stand-in for code the adapter's Python hooks never see.
 */
package io.openlineage.sdk.tests;

import org.apache.spark.api.java.JavaSparkContext;
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

  /** Copies the lines of the text files under {@code input} into text files under {@code output},
   * as an RDD job (no SQL execution). */
  public static void copyTextFiles(SparkSession spark, String input, String output) {
    JavaSparkContext.fromSparkContext(spark.sparkContext()).textFile(input).saveAsTextFile(output);
  }
}
