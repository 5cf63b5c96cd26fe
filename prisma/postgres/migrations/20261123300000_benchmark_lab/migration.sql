-- The benchmark lab: run state and progress on BenchmarkRun, and the Benchmark definitions.
-- AlterTable
ALTER TABLE "BenchmarkRun" ADD COLUMN "benchmarkId" TEXT;
ALTER TABLE "BenchmarkRun" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'done';
ALTER TABLE "BenchmarkRun" ADD COLUMN "progress" TEXT;
ALTER TABLE "BenchmarkRun" ADD COLUMN "startedAt" TIMESTAMP(3);
ALTER TABLE "BenchmarkRun" ADD COLUMN "finishedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "Benchmark" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT,
    "name" TEXT NOT NULL,
    "preset" TEXT,
    "definition" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "BenchmarkRun_benchmarkId_idx" ON "BenchmarkRun"("benchmarkId");
