"""JDBC tables named as the OpenLineage Java client names them, case by case from its own tests.

Each case is one of the Java client's ``JdbcDatasetUtilsTestFor*`` assertions (the rule the JVM
openlineage-spark agent applies to JDBC reads and writes), with the URL, table and properties
it passes and the namespace and name it expects.
"""

from __future__ import annotations

import pytest

from openlineage_sdk.naming import jdbc_dataset, jdbc_dialect

CASES = [
    # PostgreSQL: the URL's database leads, no schema is read from the URL.
    (
        "jdbc:postgresql://test-host.com",
        "schema.table1",
        "postgres://test-host.com:5432",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://192.168.1.1",
        "schema.table1",
        "postgres://192.168.1.1:5432",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://hostname?user=fred&password=sec%40ret",
        "schema.table1",
        "postgres://hostname:5432",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://hostname:5433",
        "schema.table1",
        "postgres://hostname:5433",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://hostname/mydb",
        "schema.table1",
        "postgres://hostname:5432",
        "mydb.schema.table1",
    ),
    ("jdbc:postgresql://hostname/mydb", "table1", "postgres://hostname:5432", "mydb.table1"),
    (
        "jdbc:postgresql://db/shop?currentSchema=sales",
        "orders",
        "postgres://db:5432",
        "shop.orders",
    ),
    (
        "JDBC:POSTGRESQL://TEST.HOST.COM/MYDB",
        "SCHEMA.TABLE1",
        "postgres://test.host.com:5432",
        "MYDB.SCHEMA.TABLE1",
    ),
    (
        "jdbc:postgresql://hostname1,hostname2",
        "schema.table1",
        "postgres://hostname1:5432,hostname2:5432",
        "schema.table1",
    ),
    (
        "jdbc:postgresql://hostname1:5432,hostname2:5432",
        "schema.table1",
        "postgres://hostname1:5432,hostname2:5432",
        "schema.table1",
    ),
    # MySQL (and its variants): a qualified table keeps its own database.
    ("jdbc:mysql://test-host.com", "schema.table1", "mysql://test-host.com:3306", "schema.table1"),
    (
        "jdbc:mysql://fred:sec%40ret@hostname",
        "schema.table1",
        "mysql://hostname:3306",
        "schema.table1",
    ),
    ("jdbc:mysql://hostname:3307", "schema.table1", "mysql://hostname:3307", "schema.table1"),
    ("jdbc:mysql://hostname/mydb", "schema.table1", "mysql://hostname:3306", "schema.table1"),
    ("jdbc:mysql://hostname/mydb", "table1", "mysql://hostname:3306", "mydb.table1"),
    (
        "jdbc:mysql+srv:loadbalance://domain.com",
        "schema.table1",
        "mysql://domain.com:3306",
        "schema.table1",
    ),
    (
        "jdbc:mysql+srv://username:pwd@domain.com:3307",
        "schema.table1",
        "mysql://domain.com:3307",
        "schema.table1",
    ),
    (
        "jdbc:mysql:loadbalance://myhost1,myhost2",
        "schema.table1",
        "mysql://myhost1:3306,myhost2:3306",
        "schema.table1",
    ),
    (
        "jdbc:mysql://username:pwd@myhost1:1111,username:pwd@myhost2:2222",
        "schema.table1",
        "mysql://myhost1:1111,myhost2:2222",
        "schema.table1",
    ),
    # MariaDB has no extractor of its own: the generic one, its own scheme.
    ("jdbc:mariadb://db:3306/shop", "orders", "mariadb://db:3306", "shop.orders"),
    # Oracle: thin, SID, service name, TNS, LDAP.
    (
        "jdbc:oracle:thin:@//test-host.com",
        "schema.table1",
        "oracle://test-host.com:1521",
        "schema.table1",
    ),
    (
        "jdbc:oracle:thin:@test-host.com",
        "schema.table1",
        "oracle://test-host.com:1521",
        "schema.table1",
    ),
    (
        "jdbc:oracle:thin:user/password@//hostname",
        "schema.table1",
        "oracle://hostname:1521",
        "schema.table1",
    ),
    (
        "jdbc:oracle:thin:fred/sec%40ret@hostname",
        "schema.table1",
        "oracle://hostname:1521",
        "schema.table1",
    ),
    ("jdbc:oracle:thin:@hostname:1522", "schema.table1", "oracle://hostname:1522", "schema.table1"),
    (
        "jdbc:oracle:thin:@tcp://hostname",
        "schema.table1",
        "oracle://hostname:1521",
        "schema.table1",
    ),
    (
        "jdbc:oracle:thin:@//hostname:1522/serviceName",
        "schema.table1",
        "oracle://hostname:1522",
        "serviceName.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@hostname:sid",
        "schema.table1",
        "oracle://hostname:1521",
        "sid.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@hostname:1522:sid",
        "schema.table1",
        "oracle://hostname:1522",
        "sid.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@//hostname?connect_timeout=30&retry_count=3",
        "schema.table1",
        "oracle://hostname:1521",
        "schema.table1",
    ),
    (
        "JDBC:ORACLE:THIN:@TEST.HOST.COM:SID",
        "SCHEMA.TABLE1",
        "oracle://test.host.com:1521",
        "SID.SCHEMA.TABLE1",
    ),
    (
        "jdbc:oracle:thin:@myhost1:1521,myhost2:1521",
        "schema.table1",
        "oracle://myhost1:1521,myhost2:1521",
        "schema.table1",
    ),
    (
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(PROTOCOL=tcp)(HOST=hostname)(PORT=1521))(CONNECT_DATA=(INSTANCE_NAME=ORCL)))",
        "schema.table1",
        "oracle://hostname:1521",
        "ORCL.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@(description= (retry_count=20)(retry_delay=3)(address=(protocol=tcps)(port=1522)(host=hostname))(connect_data=(service_name=servicename)))",
        "schema.table1",
        "oracle://hostname:1522",
        "servicename.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS_LIST=(ADDRESS=(PROTOCOL=tcp)(HOST=host1))(ADDRESS=(PROTOCOL=tcp)(HOST=host2)(PORT=1522)))(CONNECT_DATA=(SID=orcl)))",
        "schema.table1",
        "oracle://host1:1521,host2:1522",
        "orcl.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@ldap://oid:5000/mydb1,cn=OracleContext,dc=myco,dc=com",
        "schema.table1",
        "oracle://oid:5000",
        "mydb1.schema.table1",
    ),
    (
        "jdbc:oracle:thin:@ldap://ldap1.example.com:5000/cn=salesdept,cn=OracleContext,dc=com/mydb1",
        "schema.table1",
        "oracle://ldap1.example.com:5000",
        "mydb1.schema.table1",
    ),
    # SQL Server: sqlserver://, the instance after a slash, databaseName from the URL.
    (
        "jdbc:sqlserver://test-host.com",
        "schema.table1",
        "sqlserver://test-host.com",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;user=fred;password=sec%40ret",
        "schema.table1",
        "sqlserver://hostname",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;database=MYTESTDB",
        "schema.table1",
        "sqlserver://hostname",
        "MYTESTDB.schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;databaseName=MYTESTDB",
        "schema.table1",
        "sqlserver://hostname",
        "MYTESTDB.schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname:1433",
        "schema.table1",
        "sqlserver://hostname:1433",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;portNumber=1433",
        "schema.table1",
        "sqlserver://hostname:1433",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname\\someinstance",
        "schema.table1",
        "sqlserver://hostname/someinstance",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;instanceName=someinstance",
        "schema.table1",
        "sqlserver://hostname/someinstance",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://;serverName=someserver",
        "schema.table1",
        "sqlserver://someserver",
        "schema.table1",
    ),
    (
        "jdbc:sqlserver://hostname;integratedSecurity=true;applicationName=MyApp;",
        "schema.table1",
        "sqlserver://hostname",
        "schema.table1",
    ),
    (
        "jDBC:SQLSERVER://TEST.HOST.COM\\MYINSTANCE;DATABASENAME=MYDB",
        "SCHEMA.TABLE1",
        "sqlserver://test.host.com/MYINSTANCE",
        "MYDB.SCHEMA.TABLE1",
    ),
    (
        "jdbc:jtds:sqlserver://hostname:1433/shop",
        "dbo.orders",
        "sqlserver://hostname:1433",
        "shop.dbo.orders",
    ),
    # Teradata: DBS_PORT and DATABASE from the URL's properties.
    (
        "jdbc:teradata://test-host.com",
        "schema.table1",
        "teradata://test-host.com:1025",
        "schema.table1",
    ),
    (
        "jdbc:teradata://hostname/USER=fred,PASSWORD=sec%40ret",
        "schema.table1",
        "teradata://hostname:1025",
        "schema.table1",
    ),
    (
        "jdbc:teradata://hostname/DBS_PORT=1111",
        "schema.table1",
        "teradata://hostname:1111",
        "schema.table1",
    ),
    (
        "JDBC:TERADATA://TEST.HOST.COM/DATABASE=MYDB",
        "SCHEMA.TABLE1",
        "teradata://test.host.com:1025",
        "MYDB.SCHEMA.TABLE1",
    ),
    # DB2, Trino, CrateDB, OceanBase, ClickHouse, Cassandra: the generic reader, their ports.
    ("jdbc:db2://test-host.com", "schema.table1", "db2://test-host.com:6789", "schema.table1"),
    ("jdbc:trino://198.51.100.1", "schema.table1", "trino://198.51.100.1:443", "schema.table1"),
    ("jdbc:crate://host/doc", "t", "crate://host:5432", "doc.t"),
    ("jdbc:oceanbase:hamode://host1", "db.t", "oceanbase://host1:2881", "db.t"),
    ("jdbc:ch:https://host/db", "t", "clickhouse://host:8123", "db.t"),
    ("jdbc:clickhouse://host:9000/db", "other.t", "clickhouse://host:9000", "other.t"),
    ("jdbc:cassandra://host1--host2/ks", "t", "cassandra://host1:9042,host2:9042", "ks.t"),
    # No extractor: the generic one, or the URL itself without credentials and query.
    (
        "jdbc:unknown://fred:sec%40ret@hostname",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    (
        "jdbc:unknown://hostname?user=fred&password=sec%40ret",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    (
        "jdbc:unknown://hostname:user=fred;password=sec%40ret",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    (
        "jdbc:unknown://hostname;user=fred;password=sec%40ret;",
        "schema.table1",
        "unknown://hostname",
        "schema.table1",
    ),
    ("jdbc:unknown://hostname/mydb", "schema.table1", "unknown://hostname", "mydb.schema.table1"),
    (
        "jdbc:unknown://hostname:ssl=true;applicationName=MyApp",
        "schema.table1",
        "unknown://hostname:ssl=true;applicationName=MyApp",
        "schema.table1",
    ),
    (
        "jdbc:unknown://[3ffe:8311:eeee:f70f:0:5eae:10.203.31.9]",
        "schema.table1",
        "unknown://[3ffe:8311:eeee:f70f:0:5eae:10.203.31.9]",
        "schema.table1",
    ),
    (
        "jdbc:unknown://fred:sec%40ret@hostname1:5432,fred:sec%40ret@hostname2:5432",
        "schema.table1",
        "unknown://hostname1:5432,hostname2:5432",
        "schema.table1",
    ),
    ("jdbc:h2:mem:testdb", "PUBLIC.T", "h2:mem:testdb", "PUBLIC.T"),
    ("jdbc:h2:tcp://localhost/~/test;USER=sa;PASSWORD=pw", "T", "h2:tcp://localhost/~/test", "T"),
    ("jdbc:sqlite:/data/shop.db", "orders", "sqlite:/data/shop.db", "orders"),
]


@pytest.mark.parametrize(("url", "table", "namespace", "name"), CASES)
def test_the_java_clients_names(url: str, table: str, namespace: str, name: str) -> None:
    located = jdbc_dataset(url, table)
    assert (located.namespace, located.name) == (namespace, name)


def test_sql_server_reads_the_connections_properties_after_the_urls() -> None:
    assert jdbc_dataset("jdbc:sqlserver://hostname", "s.t", {"databaseName": "DB"}).name == "DB.s.t"
    located = jdbc_dataset("jdbc:sqlserver://", "s.t", {"serverName": "srv", "portNumber": "1"})
    assert located.namespace == "sqlserver://srv:1"
    # The URL's own database wins over the connection's.
    assert jdbc_dataset("jdbc:sqlserver://h;database=A", "t", {"database": "B"}).name == "A.t"


def test_derby_lives_under_its_home() -> None:
    located = jdbc_dataset("jdbc:derby:", "schema.table1", derby_home="/some/path")
    assert (located.namespace, located.name) == ("file:/some/path/metastore_db", "schema.table1")
    nested = jdbc_dataset("jdbc:derby:;databaseName=../parent/path", "t", derby_home="/some/path")
    assert nested.namespace == "file:/some/parent/path"


@pytest.mark.parametrize(
    "url",
    [
        "jdbc:unknown://fred:hunter2x@hostname",
        "jdbc:h2:mem:db;PASSWORD=hunter2x",
        "jdbc:foo:bar;pwd=hunter2x",
        "jdbc:foo:x?token=hunter2x",
        "jdbc:postgresql://u:hunter2x@db/shop",
        "jdbc:oracle:thin:scott/hunter2x@db:1521:orcl",
        "jdbc:sqlserver://db;password=hunter2x",
    ],
)
def test_no_credential_reaches_a_name(url: str) -> None:
    located = jdbc_dataset(url, "t")
    assert "hunter2x" not in located.namespace + located.name


def test_the_dialect_is_the_urls_first_word() -> None:
    assert jdbc_dialect("jdbc:postgresql://db/shop") == "postgresql"
    assert jdbc_dialect("jdbc:sqlserver://db") == "sqlserver"
    assert jdbc_dialect("postgresql://db") is None


def test_a_url_without_its_credentials() -> None:
    from openlineage_sdk.naming import jdbc_url_without_credentials

    assert (
        jdbc_url_without_credentials("jdbc:postgresql://u:hunter2x@db:5432/shop?password=hunter2x")
        == "jdbc:postgresql://db:5432/shop"
    )
    assert jdbc_url_without_credentials("jdbc:sqlserver://db;password=hunter2x") == (
        "jdbc:sqlserver://db"
    )
