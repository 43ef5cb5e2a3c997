// Export for analysis tools: flat tables (runs, results, metrics, findings)
// as CSV or JSON Lines, one row per line, the same columns either way, so a
// spreadsheet, pandas or DuckDB reads history without knowing the schema.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "store/store.h"
#include "sql.h"

namespace harness {
namespace {
using store_internal::Stmt;

struct TableSql {
  const char* name;
  const char* sql;  // ?1 = run id or NULL, ?2 = suite or NULL
};

// Each query names its columns as exported; run_id links the tables.
constexpr TableSql kTables[] = {
    {"runs",
     // Status and note as every reader sees them (temp.run_status).
     "SELECT id AS run_id, uuid, suite, label, s.status, started_at, finished_at, fingerprint,"
     " shard, shard_group, jobs, threads, host, s.note, options_json, env_json FROM runs"
     " JOIN temp.run_status s ON s.run_id = runs.id"
     " WHERE (?1 IS NULL OR id = ?1) AND (?2 IS NULL OR suite = ?2 OR"
     "  EXISTS (SELECT 1 FROM results x WHERE x.run_id = runs.id AND x.suite = ?2))"
     " ORDER BY id"},
    {"results",
     "SELECT r.run_id, u.label AS run_label, u.started_at AS run_started_at, r.suite, r.case_name,"
     " r.status, r.message, r.max_abs_err, r.max_rel_err, r.rel_l2, r.max_ulp, r.cosine,"
     " r.wall_us_median, r.wall_us_mad, r.wall_samples, r.modeled_us, r.fallback_ops,"
     " r.peak_device_bytes, r.recorded_at FROM results r JOIN runs u ON u.id = r.run_id"
     " WHERE (?1 IS NULL OR r.run_id = ?1) AND (?2 IS NULL OR r.suite = ?2)"
     " ORDER BY r.run_id, r.id"},
    {"metrics",
     "SELECT run_id, suite, case_name, output, name, value, limit_value, failed FROM ("
     " SELECT r.run_id, r.id AS result_id, m.rowid AS seq, r.suite, r.case_name, m.output,"
     "  m.name, m.value, m.limit_value, m.failed FROM metrics m JOIN results r ON r.id ="
     "  m.result_id WHERE (?1 IS NULL OR r.run_id = ?1) AND (?2 IS NULL OR r.suite = ?2)"
     " UNION ALL"  // a pruned result's metrics: its shared metric set
     " SELECT r.run_id, r.id, s.seq, r.suite, r.case_name, s.output, s.name, s.value,"
     "  s.limit_value, s.failed FROM results r JOIN metric_set_rows s ON s.set_id ="
     "  r.metric_set WHERE (?1 IS NULL OR r.run_id = ?1) AND (?2 IS NULL OR r.suite = ?2))"
     " ORDER BY run_id, result_id, seq"},
    {"findings",
     // With the newest bisect's verdict on the finding, where one was run.
     "SELECT g.run_id, g.baseline_run_id, g.suite, g.case_name, g.kind, g.metric, g.baseline_value,"
     " g.candidate_value, g.ratio, g.detail,"
     " CASE WHEN json_valid(g.finding_json) THEN COALESCE(json_extract(g.finding_json, '$.blamed_ops[0].op'), json_extract(g.finding_json, '$.blamed_ops[0]')) END AS op_blamed,"
     " a.verdict AS cause_verdict, a.components AS cause_components, a.text AS cause,"
     " CASE WHEN json_valid(g.finding_json) THEN json_extract(g.finding_json, '$.unit') END AS unit,"
     " CASE WHEN json_valid(g.finding_json) THEN json_extract(g.finding_json, '$.statistic') END"
     "  AS statistic"
     " FROM regressions g LEFT JOIN v_attributions a ON a.run_id = g.run_id"
     "  AND a.baseline_run_id = g.baseline_run_id AND a.suite = g.suite"
     "  AND a.case_name = g.case_name AND a.kind = g.kind"
     " WHERE (?1 IS NULL OR g.run_id = ?1) AND (?2 IS NULL OR g.suite = ?2) ORDER BY g.run_id, g.id"},
};

// Shortest text that reads back to the same double.
std::string RealText(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

const std::vector<std::string>& ExportTableNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const TableSql& t : kTables) names.push_back(t.name);
    return names;
  }();
  return kNames;
}

StatusOr<int64_t> Store::Export(const ExportRequest& request, std::ostream& out) {
  const TableSql* table = nullptr;
  for (const TableSql& t : kTables) {
    if (request.table == t.name) table = &t;
  }
  if (table == nullptr) {
    std::string names;
    for (const std::string& n : ExportTableNames()) names += (names.empty() ? "" : ", ") + n;
    return InvalidInput("export: unknown table '" + request.table + "': use one of " + names);
  }
  Stmt q(db_, table->sql);
  if (request.run_id) {
    q.Bind(1, *request.run_id);
  } else {
    q.BindNull(1);
  }
  if (!request.suite.empty()) {
    q.Bind(2, request.suite);
  } else {
    q.BindNull(2);
  }
  const int columns = q.ColumnCount();
  std::vector<std::string> names;
  for (int c = 0; c < columns; ++c) names.push_back(q.Name(c));
  const bool csv = request.format == ExportFormat::kCsv;
  if (csv) {
    for (int c = 0; c < columns; ++c) out << (c ? "," : "") << names[c];
    out << "\n";
  }
  int64_t rows = 0;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    nlohmann::json line = nlohmann::json::object();
    for (int c = 0; c < columns; ++c) {
      const int type = q.Type(c);
      if (csv) {
        if (c) out << ",";
        if (type == SQLITE_INTEGER) {
          out << q.Int(c);
        } else if (type == SQLITE_FLOAT) {
          out << RealText(q.Real(c));
        } else if (type != SQLITE_NULL) {
          out << CsvField(q.Text(c));
        }
      } else if (type == SQLITE_INTEGER) {
        line[names[c]] = q.Int(c);
      } else if (type == SQLITE_FLOAT) {
        const double v = q.Real(c);
        if (std::isinf(v)) {
          line[names[c]] = RealText(v);  // JSON has no infinity
        } else {
          line[names[c]] = v;
        }
      } else if (type == SQLITE_NULL) {
        line[names[c]] = nullptr;
      } else {
        line[names[c]] = q.Text(c);
      }
    }
    if (csv) {
      out << "\n";
    } else {
      out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    ++rows;
  }
  if (rc != SQLITE_DONE) return Error(rc, "exporting " + request.table);
  if (!out)
    return IoError("export: writing " + request.table + " failed (disk full or closed pipe)");
  return rows;
}

}  // namespace harness
