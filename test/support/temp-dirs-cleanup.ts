// A setup file (vitest.config.ts): after each test file, the temp directories it made are removed.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.js';

afterAll(removeTempDirs);
