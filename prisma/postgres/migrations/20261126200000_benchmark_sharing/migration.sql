-- AlterTable
ALTER TABLE "BenchmarkRun" ADD COLUMN "sharedRole" TEXT;
-- AlterTable
ALTER TABLE "Benchmark" ADD COLUMN "sharedRole" TEXT;
