/*
 * A test-only Spark catalog of in-memory tables that support row-level operations.
 *
 * Spark plans MERGE INTO, UPDATE and DELETE on any v2 table that implements
 * SupportsRowLevelOperations the way it plans them for Iceberg or Delta tables: ReplaceData for
 * a copy-on-write table, WriteDelta (with MergeRows for a MERGE) for a merge-on-read one. This
 * catalog's tables do both: as Iceberg's, the mode is chosen per command by the table properties
 * "write.delete.mode", "write.update.mode" and "write.merge.mode" ("copy-on-write", the default,
 * or "merge-on-read"), so the adapter's tests can run those statements for real without the
 * Delta or Iceberg JARs.
 *
 * Rows live in the driver's memory (the tests run Spark in local mode), per table, each with an
 * id of its own, which a merge-on-read operation reads as the metadata column "_row_id". Each
 * table claims a location under the catalog's "warehouse" option,
 * "{warehouse}/{namespace}/{table}", as Iceberg's and Delta's tables have one, and a version that
 * each commit increases. Table properties are kept as given (TBLPROPERTIES), so a table can
 * describe itself to OpenLineage with "openlineage.dataset.*".
 */
package io.openlineage.sdk.tests;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Locale;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

public class RowLevelCatalog implements TableCatalog, SupportsNamespaces {
  static final String ROW_ID = "_row_id";

  // Tables by "{catalog}.{namespace}.{table}": shared by every instance of the catalog, since
  // Spark makes one per session and the tests' Connect sessions are sessions of their own.
  private static final Map<String, MemoryTable> TABLES = new ConcurrentHashMap<>();
  private static final Map<String, Map<String, String>> NAMESPACES = new ConcurrentHashMap<>();

  private String name;
  private String warehouse;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
    this.warehouse = options.getOrDefault("warehouse", "/tmp/row-level-warehouse");
  }

  @Override
  public String name() {
    return name;
  }

  private String key(Identifier ident) {
    return name + "." + String.join(".", ident.namespace()) + "." + ident.name();
  }

  @Override
  public Identifier[] listTables(String[] namespace) {
    String prefix = name + "." + String.join(".", namespace) + ".";
    List<Identifier> found = new ArrayList<>();
    for (String table : TABLES.keySet()) {
      if (table.startsWith(prefix) && !table.substring(prefix.length()).contains(".")) {
        found.add(Identifier.of(namespace, table.substring(prefix.length())));
      }
    }
    return found.toArray(new Identifier[0]);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    MemoryTable table = TABLES.get(key(ident));
    if (table == null) {
      throw new NoSuchTableException(ident);
    }
    return table;
  }

  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException {
    List<StructField> fields = new ArrayList<>();
    for (Column column : columns) {
      fields.add(
          new StructField(column.name(), column.dataType(), column.nullable(), Metadata.empty()));
    }
    StructType schema = new StructType(fields.toArray(new StructField[0]));
    return createTable(ident, schema, partitions, properties);
  }

  // Spark 3.5's abstract form (its columns form calls it); Spark 4 calls the columns form.
  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException {
    Map<String, String> kept = new LinkedHashMap<>(properties);
    kept.putIfAbsent(
        TableCatalog.PROP_LOCATION,
        warehouse + "/" + String.join("/", ident.namespace()) + "/" + ident.name());
    MemoryTable table = new MemoryTable(key(ident), schema, kept);
    if (TABLES.putIfAbsent(key(ident), table) != null) {
      throw new TableAlreadyExistsException(ident);
    }
    return table;
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    MemoryTable table = (MemoryTable) loadTable(ident);
    for (TableChange change : changes) {
      if (change instanceof TableChange.SetProperty) {
        TableChange.SetProperty set = (TableChange.SetProperty) change;
        table.properties.put(set.property(), set.value());
      } else if (change instanceof TableChange.RemoveProperty) {
        table.properties.remove(((TableChange.RemoveProperty) change).property());
      } else {
        throw new UnsupportedOperationException("the test catalog only changes properties");
      }
    }
    return table;
  }

  @Override
  public boolean dropTable(Identifier ident) {
    return TABLES.remove(key(ident)) != null;
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw new UnsupportedOperationException("the test catalog does not rename tables");
  }

  // -- namespaces (any namespace exists; created ones are listed)

  @Override
  public String[][] listNamespaces() {
    List<String[]> found = new ArrayList<>();
    for (String namespace : NAMESPACES.keySet()) {
      if (namespace.startsWith(name + ".")) {
        found.add(namespace.substring(name.length() + 1).split("\\."));
      }
    }
    return found.toArray(new String[0][]);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) {
    return new String[0][];
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    return true;
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) {
    return NAMESPACES.getOrDefault(name + "." + String.join(".", namespace), new HashMap<>());
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    NAMESPACES.put(name + "." + String.join(".", namespace), new HashMap<>(metadata));
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {}

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    return NAMESPACES.remove(name + "." + String.join(".", namespace)) != null;
  }

  // ---------------------------------------------------------------------------------- tables

  /** One table: its rows (copies), its schema and properties, its version. */
  public static class MemoryTable
      implements SupportsRead,
          SupportsWrite,
          SupportsRowLevelOperations,
          SupportsMetadataColumns {
    private final String name;
    private final StructType schema;
    final Map<String, String> properties;
    private List<InternalRow> rows = new ArrayList<>();
    private List<Long> ids = new ArrayList<>();
    private final AtomicLong nextId = new AtomicLong(0);
    private final AtomicLong version = new AtomicLong(0);

    MemoryTable(String name, StructType schema, Map<String, String> properties) {
      this.name = name;
      this.schema = schema;
      this.properties = new ConcurrentHashMap<>(properties);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public StructType schema() {
      return schema;
    }

    @Override
    public Column[] columns() {
      Column[] found = new Column[schema.fields().length];
      for (int i = 0; i < found.length; i++) {
        StructField field = schema.fields()[i];
        found[i] = Column.create(field.name(), field.dataType(), field.nullable());
      }
      return found;
    }

    @Override
    public Map<String, String> properties() {
      return properties;
    }

    // Table.version() is Spark 4's: on 3.5 this is a method of this class alone.
    public String version() {
      return Long.toString(version.get());
    }

    @Override
    public Set<TableCapability> capabilities() {
      return EnumSet.of(
          TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE);
    }

    @Override
    public MetadataColumn[] metadataColumns() {
      return new MetadataColumn[] {
        new MetadataColumn() {
          @Override
          public String name() {
            return ROW_ID;
          }

          @Override
          public DataType dataType() {
            return DataTypes.LongType;
          }

          @Override
          public boolean isNullable() {
            return false;
          }
        }
      };
    }

    boolean mergeOnRead(RowLevelOperation.Command command) {
      String key = "write." + command.name().toLowerCase(Locale.ROOT) + ".mode";
      return "merge-on-read".equals(properties.getOrDefault(key, "copy-on-write"));
    }

    /** The rows, each with its id in a last column. */
    synchronized List<InternalRow> snapshot() {
      List<InternalRow> found = new ArrayList<>();
      for (int i = 0; i < rows.size(); i++) {
        found.add(withId(rows.get(i), ids.get(i)));
      }
      return found;
    }

    private InternalRow withId(InternalRow row, long id) {
      Object[] values = new Object[schema.size() + 1];
      for (int i = 0; i < schema.size(); i++) {
        values[i] = row.get(i, schema.fields()[i].dataType());
      }
      values[schema.size()] = id;
      return new GenericInternalRow(values);
    }

    /** Keep the rows (with ids) that remain, append new rows, and count a version. */
    synchronized void commit(List<InternalRow> kept, List<Long> keptIds, List<InternalRow> added) {
      List<InternalRow> newRows = new ArrayList<>(kept);
      List<Long> newIds = new ArrayList<>(keptIds);
      for (InternalRow row : added) {
        newRows.add(row);
        newIds.add(nextId.getAndIncrement());
      }
      rows = newRows;
      ids = newIds;
      version.incrementAndGet();
    }

    synchronized List<InternalRow> rows() {
      return new ArrayList<>(rows);
    }

    synchronized List<Long> ids() {
      return new ArrayList<>(ids);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return new MemoryScan(schema, snapshot());
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return new AppendBuilder(this);
    }

    @Override
    public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
      if (mergeOnRead(info.command())) {
        return () -> new DeltaOperation(this, info.command());
      }
      return () -> new CopyOnWriteOperation(this, info.command());
    }
  }

  // ------------------------------------------------------------------------------------ reads

  /** A scan of every row, of the columns Spark asks for (the row id among them, by name). */
  static class MemoryScan implements ScanBuilder, SupportsPushDownRequiredColumns, Scan, Batch {
    private final StructType schema;
    private final List<InternalRow> rows;
    private StructType required;

    MemoryScan(StructType schema, List<InternalRow> rows) {
      this.schema = schema;
      this.rows = rows;
      this.required = schema;
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
      required = requiredSchema;
    }

    @Override
    public Scan build() {
      return this;
    }

    @Override
    public StructType readSchema() {
      return required;
    }

    @Override
    public Batch toBatch() {
      return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
      List<InternalRow> projected = new ArrayList<>();
      for (InternalRow row : rows) {
        Object[] values = new Object[required.size()];
        for (int i = 0; i < required.size(); i++) {
          StructField field = required.fields()[i];
          int index = ROW_ID.equals(field.name()) ? schema.size() : schema.fieldIndex(field.name());
          values[i] = row.get(index, field.dataType());
        }
        projected.add(new GenericInternalRow(values));
      }
      return new InputPartition[] {new RowsPartition(projected)};
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return new RowsReaderFactory();
    }
  }

  static class RowsPartition implements InputPartition {
    final ArrayList<InternalRow> rows;

    RowsPartition(List<InternalRow> rows) {
      this.rows = new ArrayList<>(rows);
    }
  }

  static class RowsReaderFactory implements PartitionReaderFactory {
    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      List<InternalRow> rows = ((RowsPartition) partition).rows;
      return new PartitionReader<InternalRow>() {
        private int index = -1;

        @Override
        public boolean next() {
          index++;
          return index < rows.size();
        }

        @Override
        public InternalRow get() {
          return rows.get(index);
        }

        @Override
        public void close() {}
      };
    }
  }

  // ----------------------------------------------------------------------------------- writes

  /** What a task wrote: rows to insert, and (merge-on-read) rows deleted or updated by id. */
  static class Written implements WriterCommitMessage {
    final ArrayList<InternalRow> inserted = new ArrayList<>();
    final ArrayList<InternalRow> deletedIds = new ArrayList<>();
    final ArrayList<InternalRow> updatedIds = new ArrayList<>();
    final ArrayList<InternalRow> updatedRows = new ArrayList<>();
  }

  static class RowsWriter implements DeltaWriter<InternalRow> {
    private final Written written = new Written();
    private final StructType replaced;

    /**
     * @param replaced the table's schema when the rows written replace the table's (copy-on-write),
     *     else null
     */
    RowsWriter(StructType replaced) {
      this.replaced = replaced;
    }

    @Override
    public void write(InternalRow row) {
      written.inserted.add(tableRow(row).copy());
    }

    /**
     * The table's columns of a row that Spark hands to {@link #write(InternalRow)}.
     *
     * <p>Spark 4.0 and 4.1 plan a copy-on-write command whose operation reads no metadata column
     * as a {@code DataWritingSparkTask} ({@code ReplaceDataExec.writingTask}), which writes the
     * rows of {@code ReplaceData}'s query as they are: the row operation code first
     * ({@code RowDeltaUtils.WRITE_OPERATION}, 5), then the table's columns. Spark 3.5 hands the
     * table's columns alone, and 4.2 on project them first ({@code
     * DataWithProjectionWritingSparkTask}). So a copy-on-write row one column wider than the table
     * is read without its first column.
     */
    private InternalRow tableRow(InternalRow row) {
      if (replaced == null || row.numFields() != replaced.fields().length + 1) {
        return row;
      }
      StructField[] fields = replaced.fields();
      Object[] values = new Object[fields.length];
      for (int i = 0; i < fields.length; i++) {
        values[i] = row.isNullAt(i + 1) ? null : row.get(i + 1, fields[i].dataType());
      }
      return new GenericInternalRow(values);
    }

    @Override
    public void insert(InternalRow row) {
      written.inserted.add(row.copy());
    }

    @Override
    public void delete(InternalRow metadata, InternalRow id) {
      written.deletedIds.add(id.copy());
    }

    @Override
    public void update(InternalRow metadata, InternalRow id, InternalRow row) {
      written.updatedIds.add(id.copy());
      written.updatedRows.add(row.copy());
    }

    @Override
    public WriterCommitMessage commit() {
      return written;
    }

    @Override
    public void abort() {}

    @Override
    public void close() {}
  }

  static class RowsWriterFactory implements DataWriterFactory, DeltaWriterFactory {
    private final StructType replaced;

    /** @param replaced see {@link RowsWriter#RowsWriter(StructType)} */
    RowsWriterFactory(StructType replaced) {
      this.replaced = replaced;
    }

    @Override
    public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
      return new RowsWriter(replaced);
    }
  }

  /** INSERT INTO (append) and INSERT OVERWRITE without a filter (truncate, then append). */
  static class AppendBuilder implements WriteBuilder, SupportsTruncate, Write, BatchWrite {
    private final MemoryTable table;
    private boolean truncate;
    private boolean replaces;

    AppendBuilder(MemoryTable table) {
      this.table = table;
    }

    @Override
    public WriteBuilder truncate() {
      truncate = true;
      return this;
    }

    /** The rows written replace the table's: a copy-on-write command's. */
    AppendBuilder replacing() {
      truncate = true;
      replaces = true;
      return this;
    }

    @Override
    public Write build() {
      return this;
    }

    @Override
    public BatchWrite toBatch() {
      return this;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
      return new RowsWriterFactory(replaces ? table.schema() : null);
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
      List<InternalRow> added = new ArrayList<>();
      for (WriterCommitMessage message : messages) {
        added.addAll(((Written) message).inserted);
      }
      if (truncate) {
        table.commit(new ArrayList<>(), new ArrayList<>(), added);
      } else {
        table.commit(table.rows(), table.ids(), added);
      }
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {}
  }

  /**
   * Copy-on-write: Spark reads every row (one group: the whole table) and writes back the rows
   * that remain, changed or not, which replace the table's rows.
   */
  static class CopyOnWriteOperation implements RowLevelOperation {
    private final MemoryTable table;
    private final Command command;

    CopyOnWriteOperation(MemoryTable table, Command command) {
      this.table = table;
      this.command = command;
    }

    @Override
    public Command command() {
      return command;
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return table.newScanBuilder(options);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return new AppendBuilder(table).replacing();
    }
  }

  /**
   * Merge-on-read: Spark writes only the changes (deletes and updates by row id, inserts), which
   * are applied to the table's rows.
   */
  static class DeltaOperation implements SupportsDelta {
    private final MemoryTable table;
    private final Command command;

    DeltaOperation(MemoryTable table, Command command) {
      this.table = table;
      this.command = command;
    }

    @Override
    public Command command() {
      return command;
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return table.newScanBuilder(options);
    }

    @Override
    public NamedReference[] rowId() {
      return new NamedReference[] {Expressions.column(ROW_ID)};
    }

    @Override
    public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return new DeltaWriteBuilder() {
        @Override
        public DeltaWrite build() {
          return new DeltaWrite() {
            @Override
            public DeltaBatchWrite toBatch() {
              return new DeltaBatchWrite() {
                @Override
                public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
                  return new RowsWriterFactory(null);
                }

                @Override
                public void commit(WriterCommitMessage[] messages) {
                  applyChanges(table, messages);
                }

                @Override
                public void abort(WriterCommitMessage[] messages) {}
              };
            }
          };
        }
      };
    }
  }

  static void applyChanges(MemoryTable table, WriterCommitMessage[] messages) {
    Map<Long, InternalRow> updates = new HashMap<>();
    Set<Long> deleted = new HashSet<>();
    List<InternalRow> inserted = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      Written written = (Written) message;
      for (InternalRow id : written.deletedIds) {
        deleted.add(id.getLong(0));
      }
      for (int i = 0; i < written.updatedIds.size(); i++) {
        updates.put(written.updatedIds.get(i).getLong(0), written.updatedRows.get(i));
      }
      inserted.addAll(written.inserted);
    }
    List<InternalRow> rows = table.rows();
    List<Long> ids = table.ids();
    List<InternalRow> kept = new ArrayList<>();
    List<Long> keptIds = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      Long id = ids.get(i);
      if (deleted.contains(id)) {
        continue;
      }
      kept.add(updates.containsKey(id) ? updates.get(id) : rows.get(i));
      keptIds.add(id);
    }
    table.commit(kept, keptIds, inserted);
  }
}
