-- AlterTable
ALTER TABLE "BenchmarkRun" ADD COLUMN "replica" TEXT;

-- CreateTable
CREATE TABLE "Replica" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Replica_seenAt_idx" ON "Replica"("seenAt");
