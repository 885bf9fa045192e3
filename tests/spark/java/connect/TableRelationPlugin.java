/*
 * A Spark Connect server plugin's relation, as Delta Connect's are: an extension message the
 * client sends inside a plan, which only the server's plugin turns into a logical plan. Here a
 * google.protobuf.StringValue "table:NAME" reads the catalog table NAME; any other message is
 * not this plugin's (the server then refuses it as an unknown extension).
 */
package io.openlineage.sdk.tests;

import java.util.Optional;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.RelationPlugin;
import org.sparkproject.connect.protobuf.Any;
import org.sparkproject.connect.protobuf.InvalidProtocolBufferException;
import org.sparkproject.connect.protobuf.StringValue;

public final class TableRelationPlugin implements RelationPlugin {
  private static final String PREFIX = "table:";

  @Override
  public Optional<LogicalPlan> transform(byte[] relation, SparkConnectPlanner planner) {
    try {
      Any message = Any.parseFrom(relation);
      if (!message.is(StringValue.class)) {
        return Optional.empty();
      }
      String value = message.unpack(StringValue.class).getValue();
      if (!value.startsWith(PREFIX)) {
        return Optional.empty();
      }
      return Optional.of(planner.session().table(value.substring(PREFIX.length())).logicalPlan());
    } catch (InvalidProtocolBufferException error) {
      throw new IllegalArgumentException(error);
    }
  }
}
