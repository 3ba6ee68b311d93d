// Runs the official JS client against harborlight's ClickHouse HTTP interface and prints what it saw as JSON.
// Usage: node check.mjs URL TENANT_TOKEN OTHER_SERVICE OWN_SERVICE
import { createClient } from '@clickhouse/client'

const [url, token, otherService, ownService] = process.argv.slice(2)
const open = (password) => createClient({ url, username: 'grafana', password, compression: { response: true } })

async function outcome(fn) {
  try {
    return { ok: await fn() }
  } catch (err) {
    return { error: { code: String(err.code ?? ''), type: err.type ?? '', message: String(err.message) } }
  }
}

const client = open(token)
const services = `SELECT ServiceName, count() AS spans FROM otel_traces
                  WHERE ServiceName IN ({own:String}, {other:String}) GROUP BY ServiceName`
const out = {
  ping: await client.ping(),
  rows: await outcome(async () => (await client.query({
    query: services, query_params: { own: ownService, other: otherService }, format: 'JSONEachRow',
  })).json()),
  json: await outcome(async () => (await client.query({ query: 'SELECT 1 AS one', format: 'JSON' })).json()),
  tsv: await outcome(async () => (await client.query({
    query: 'SELECT 1 AS one', format: 'TabSeparatedWithNamesAndTypes' })).text()),
  insert: await outcome(async () => client.insert({
    table: 'otel_logs', values: [{ Body: 'x' }], format: 'JSONEachRow' })),
  ddl: await outcome(async () => client.command({ query: 'CREATE TABLE stolen (a Int32) ENGINE = Memory' })),
  syntax: await outcome(async () => (await client.query({ query: 'SELEC 1', format: 'JSONEachRow' })).json()),
}
const stranger = open('not-a-token')
out.badToken = await outcome(async () => (await stranger.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json())
await client.close()
await stranger.close()
console.log(JSON.stringify(out))
