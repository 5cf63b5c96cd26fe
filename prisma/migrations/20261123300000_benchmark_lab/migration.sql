-- The benchmark lab: run state and progress on BenchmarkRun, and the Benchmark definitions.
-- AlterTable
ALTER TABLE "BenchmarkRun" ADD COLUMN "benchmarkId" TEXT;
ALTER TABLE "BenchmarkRun" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'done';
ALTER TABLE "BenchmarkRun" ADD COLUMN "progress" TEXT;
ALTER TABLE "BenchmarkRun" ADD COLUMN "startedAt" DATETIME;
ALTER TABLE "BenchmarkRun" ADD COLUMN "finishedAt" DATETIME;

-- CreateTable
CREATE TABLE "Benchmark" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT,
    "name" TEXT NOT NULL,
    "preset" TEXT,
    "definition" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "BenchmarkRun_benchmarkId_idx" ON "BenchmarkRun"("benchmarkId");
