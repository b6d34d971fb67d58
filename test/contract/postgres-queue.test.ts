import { afterAll, beforeAll } from "vitest";
import { openBackend } from "../../src/backends/open-backend.js";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { describeQueueContract } from "./queue-contract.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

// A database for each test: graphile-worker's schema and the job records start empty.
describeQueueContract("PostgreSQL", async () => openBackend({ databaseUrl: await server.newDatabase(), poolSize: 10 }));
